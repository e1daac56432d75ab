/**
 * The external things a rule names, found in its configs by field name: sensors, persons,
 * notification channels and language models. A bundle lists them so an import can say
 * what the receiving household lacks.
 */
import { DEFAULT_LEVELS, type Settings } from "../../../../../settings";
import type { ContextView, StepView } from "../rule-model";

const SENSOR_FIELDS = new Set(["sensor_ids", "additional_sensor_ids", "eink_targets", "targets", "sensor_id"]);
const PERSON_FIELDS = new Set(["person_id", "person_ids", "target_persons"]);

const strings = (v: unknown): string[] =>
  typeof v === "string"
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s && !s.includes("{{"))
    : Array.isArray(v)
      ? v.flatMap(strings)
      : [];

export function collectReferences(primarySensor: string | null, steps: readonly StepView[], contexts: readonly ContextView[], settings: Settings) {
  const sensors = new Set<string>(primarySensor ? [primarySensor] : []);
  const persons = new Set<string>();
  const channels = new Set<string>();
  const models = new Set<string>();
  const scan = (config: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(config)) {
      if (SENSOR_FIELDS.has(k)) strings(v).forEach((s) => sensors.add(s));
      if (PERSON_FIELDS.has(k)) strings(v).forEach((s) => persons.add(s));
      if (k === "model_id") strings(v).forEach((s) => models.add(s));
    }
  };
  for (const s of steps) {
    scan(s.config_json);
    if (s.step_type === "notification") {
      const level = String(s.config_json.alert_level ?? "warning") as keyof typeof DEFAULT_LEVELS;
      const list = Array.isArray(s.config_json.channels)
        ? s.config_json.channels
        : (settings.notifications.levels[level]?.channels ?? DEFAULT_LEVELS[level]?.channels ?? []);
      strings(list).forEach((c) => channels.add(c));
    }
  }
  for (const c of contexts) scan(c.config);
  const sorted = (s: Set<string>) => [...s].sort();
  return { sensors: sorted(sensors), persons: sorted(persons), channels: sorted(channels), llm_models: sorted(models) };
}
