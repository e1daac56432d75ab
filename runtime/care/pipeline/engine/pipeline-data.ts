/**
 * A run's pipeline_data at its start: the trigger context, `trigger_input` and `system`
 * (local time, and `system.weather` from the hub's weather entity, null without one).
 */
import type { TriggerContext } from "../../../../nodes/_kit/handler-types";
import type { HubWeather } from "../../../../nodes/_kit/care-services";
import { buildSystemObject } from "../system-object";

export function initialPipelineData(
  trigger: TriggerContext,
  triggerInput: Record<string, unknown> | null,
  nowMs: number,
  timezone: string,
  weather: HubWeather | null = null,
): Record<string, unknown> {
  return { ...trigger, trigger_input: triggerInput, system: { ...buildSystemObject(nowMs, timezone), weather } };
}
