/** What care services receive: the platform's context, the flows, and the engine once it runs. */
import type { PlatformContext } from "../../platform/context";
import type { FlowWriter } from "./rules/flow-writer";
import type { RuleFirer, RunEngine } from "./pipeline/engine/types";
import type { HubLink } from "../../household/hub/hub";
import type { ChatServices } from "../../../nodes/_kit/care-services";
import type { ServiceAnswer } from "../../../vocabulary/answers";
import type { ConverseRequest, Conversing } from "../../../vocabulary/voice";

/**
 * What the care services have in hand for one app, made with its context (never looked up by
 * it), so a rehearsal's scratch home has its own and a copy of a context shares the original's.
 */
export interface CareWork {
  /** Answers to one prompt are applied one after another (key `execution:step`). */
  answerQueues: Map<string, Promise<unknown>>;
  /** Prompts an answer is being applied to: the timeout watch leaves them alone. */
  answering: Set<string>;
  /** Each running quiz session's countdown (its cancel), by session id. */
  quizCountdowns: Map<number, () => void>;
}

export const newCareWork = (): CareWork => ({ answerQueues: new Map(), answering: new Set(), quizCountdowns: new Map() });

export interface CareContext extends PlatformContext {
  /** What the care services have in hand: answers being applied, quiz countdowns. */
  work: CareWork;
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
