/** Dementia-signal kinds and severities, and the alert config a person may carry. */
import { z } from "zod";

export const SIGNAL_KINDS = [
  "pacing",
  "room_revisit_rate",
  "bathroom_dwell_anomaly",
  "sundowning_index",
  "nighttime_movement",
  "stillness_anomaly",
  "absence",
] as const;
export const SIGNAL_SEVERITIES = ["info", "warning", "emergency"] as const;

/** null means every kind at `info`. */
export const ctsAlertConfigSchema = z
  .object({
    enabled_kinds: z.array(z.enum(SIGNAL_KINDS)),
    min_severity: z.enum(SIGNAL_SEVERITIES),
  })
  .strict()
  .nullable();

export type CtsAlertConfig = z.infer<typeof ctsAlertConfigSchema>;
