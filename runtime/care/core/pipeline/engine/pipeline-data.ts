/**
 * A run's pipeline_data at its start: the trigger context, `trigger_input` and `system`
 * (local time, and `system.weather` from the hub's weather entity, null without one). A
 * `cts_window` run starts with its window's keys at the top too (`frames`, `summary`, ...), where
 * a `cts_window_poll` step would leave them: the spec makes the two symmetric.
 */
import type { TriggerContext } from "../../../../../nodes/_kit/handler-types";
import type { HubWeather } from "../../../../../vocabulary/hub";
import { buildSystemObject } from "../system-object";

export function initialPipelineData(
  trigger: TriggerContext,
  triggerInput: Record<string, unknown> | null,
  nowMs: number,
  timezone: string,
  weather: HubWeather | null = null,
): Record<string, unknown> {
  const window = trigger.trigger_type === "cts_window" && trigger.webhook_payload ? trigger.webhook_payload : {};
  return { ...window, ...trigger, trigger_input: triggerInput, system: systemWithWeather(buildSystemObject(nowMs, timezone), weather) };
}

/**
 * The system object with the weather, frozen and shared by every run that starts in the same
 * minute with the same weather reading: the runs' writer serializes a frozen value once
 * (execution-rows' dataJson), not once per run.
 */
function systemWithWeather(system: Readonly<object>, weather: HubWeather | null): Readonly<Record<string, unknown>> {
  if (last && last.system === system && last.weather === weather) return last.value;
  const value = Object.freeze({ ...system, weather });
  last = { system, weather, value };
  return value;
}

let last: { system: Readonly<object>; weather: HubWeather | null; value: Readonly<Record<string, unknown>> } | null = null;
