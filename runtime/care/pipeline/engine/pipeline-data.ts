/** A run's pipeline_data at its start: the trigger context, `trigger_input` and `system`. */
import type { TriggerContext } from "../../../../nodes/_kit/handler-types";
import { buildSystemObject } from "../system-object";

export function initialPipelineData(
  trigger: TriggerContext,
  triggerInput: Record<string, unknown> | null,
  nowMs: number,
  timezone: string,
): Record<string, unknown> {
  return { ...trigger, trigger_input: triggerInput, system: buildSystemObject(nowMs, timezone) };
}
