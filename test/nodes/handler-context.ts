/** A handler context and step input for handler tests, with a manual clock and a silent log. */
import type { AppContext } from "../../runtime/context";
import { ManualClock } from "../../runtime/core/clock";
import { createLogger } from "../../runtime/core/logger";
import type { HandlerContext, StepInput, TriggerContext } from "../../nodes/_kit/handler-types";
import { triggerContext } from "../../runtime/pipeline/engine/types";

export function handlerContext(services: Partial<AppContext> = {}, clock = new ManualClock()): HandlerContext<AppContext> {
  return { clock, log: createLogger("silent"), services: { clock, ...services } as AppContext, signal: new AbortController().signal };
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
