/** What care services receive: the platform's context, the flows, and the engine once it runs. */
import type { PlatformContext } from "../../platform/context";
import type { FlowWriter } from "./rules/flow-writer";
import type { RuleFirer, RunEngine } from "./pipeline/engine/types";
import type { HubLink } from "../../household/hub/hub";
import type { ChatServices } from "../../../nodes/_kit/care-services";
import type { ServiceAnswer } from "../../../vocabulary/answers";
import type { ConverseRequest, Conversing } from "../../../vocabulary/voice";

export interface CareContext extends PlatformContext {
  /** Reads and writes the flows; rules, steps, edges and contexts live there. */
  flows: FlowWriter;
  /** Runs rules; present when Node-RED is embedded. */
  engine?: RunEngine;
  /** Fires rules through the gates; the engine sets it when it starts (webhooks call it). */
  firer?: RuleFirer;
  /** The home hub, when the app started one (`hub.url` and a token set); see household/hub. */
  hub?: HubLink;
  /** The family's chat, when the app started it (runtime/care/services/chat). */
  chat?: ChatServices;
  /** The voice companion (runtime/care/surfaces/voice), once the app started it. */
  voice?: { start(request: ConverseRequest, signal?: AbortSignal): Promise<ServiceAnswer<Conversing>> };
  /** The input journal, when `journal.enabled`: a reader of it flushes first, so it sees every input recorded so far. */
  journal?: { flush(): Promise<void> };
}
