/** Dementia-signal kinds and severities, and the alert config a person may carry. */
import { z } from "zod";

import { DEMENTIA_SIGNAL_KINDS as SIGNAL_KINDS, SIGNAL_SEVERITIES } from "../../../nodes/filters/dementia_signal/dementia_signal.node";

export { SIGNAL_KINDS, SIGNAL_SEVERITIES };

/** null means every kind at `info`. */
export const ctsAlertConfigSchema = z
  .object({
    enabled_kinds: z.array(z.enum(SIGNAL_KINDS)),
    min_severity: z.enum(SIGNAL_SEVERITIES),
  })
  .strict()
  .nullable();

export type CtsAlertConfig = z.infer<typeof ctsAlertConfigSchema>;
