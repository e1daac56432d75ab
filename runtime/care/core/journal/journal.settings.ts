/** The `journal` settings section: the input journal kept for rehearsal. */
import { z } from "zod";

// The input journal (care/core/journal): every input a rule could see, kept for rehearsal.
export const journalSettings = z
  .object({
    enabled: z.boolean().default(true),
    retention_days: z.number().int().positive().default(14),
  })
  .strict()
  .prefault({});
