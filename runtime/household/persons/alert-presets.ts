/**
 * The spec's alert profiles (Person → Alert profiles): Senior, Adult and Presence only are named
 * sets of dementia-signal kinds; Custom is any other `cts_alert_config`. Stored as the plain
 * config they stand for (the API keeps `cts_alert_config` as the one thing written), so a
 * preset is a way to fill it, and which preset a stored config is comes from comparing them.
 * The spec gives presets no minimum severity: they use `info`, as a null config does.
 */
import { SIGNAL_KINDS, SIGNAL_SEVERITIES, type CtsAlertConfig } from "./alert-profiles";

type SignalKind = (typeof SIGNAL_KINDS)[number];

export type AlertPresetId = "senior" | "adult" | "presence_only";

export interface AlertPreset {
  id: AlertPresetId;
  label: string;
  enabled_kinds: readonly SignalKind[];
  min_severity: (typeof SIGNAL_SEVERITIES)[number];
}

export const ALERT_PRESETS: readonly AlertPreset[] = [
  { id: "senior", label: "Senior", enabled_kinds: SIGNAL_KINDS, min_severity: "info" },
  { id: "adult", label: "Adult", enabled_kinds: ["absence", "nighttime_movement", "stillness_anomaly"], min_severity: "info" },
  { id: "presence_only", label: "Presence only", enabled_kinds: ["absence"], min_severity: "info" },
];

/** Which preset a stored config is: null (every kind at `info`) is Senior; anything else not a preset is `custom`. */
export function presetOf(config: CtsAlertConfig): AlertPresetId | "custom" {
  const kinds = new Set<string>(config ? config.enabled_kinds : SIGNAL_KINDS);
  const severity = config ? config.min_severity : "info";
  const match = ALERT_PRESETS.find((p) => p.min_severity === severity && p.enabled_kinds.length === kinds.size && p.enabled_kinds.every((k) => kinds.has(k)));
  return match?.id ?? "custom";
}

/** `GET /persons/alert-profiles`: the presets and what a Custom profile may choose from. */
export function alertProfiles(): { presets: readonly AlertPreset[]; kinds: readonly string[]; severities: readonly string[] } {
  return { presets: ALERT_PRESETS, kinds: SIGNAL_KINDS, severities: SIGNAL_SEVERITIES };
}
