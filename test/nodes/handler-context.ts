/** A handler context and step input for handler tests, with a manual clock, a silent log and fake care services. */
import type { HandlerContext, StepInput, TriggerContext } from "../../nodes/_kit/handler-types";
import { ManualClock } from "../../runtime/platform/core/clock";
import { createLogger } from "../../runtime/platform/core/logger";
import { triggerContext } from "../../runtime/care/core/pipeline/engine/types";
import { fakeServices, type FakeOptions, type FakeParts } from "./fake-services";

export function handlerContext(parts: FakeParts = {}, clock = new ManualClock(), opts: FakeOptions = {}): HandlerContext & { clock: ManualClock } {
  return { clock, log: createLogger("silent"), services: fakeServices(parts, opts), signal: new AbortController().signal };
}

export const trigger = (over: Partial<TriggerContext> = {}): TriggerContext => triggerContext({ trigger_type: "manual", ...over });

export const stepInput = (pipeline_data: Record<string, unknown>, step_type = "x"): StepInput => ({
  pipeline_data,
  trigger: trigger(),
  step: { id: 1, label: "s", step_type },
  idempotency_key: "1:1:0",
  execution_id: 1,
  rule_id: 1,
});
