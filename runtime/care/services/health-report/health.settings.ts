/** The `health` settings section: when the family's daily message, careflow's sign of life, is sent (docs/health.md). */
import { z } from "zod";

// careflow watching itself (docs/health.md): the family's daily message, at this local time
// (`app.timezone`), is its sign of life; its absence is the family's dead-man's switch.
export const healthSettings = z
  .object({
    daily_report_at: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "a local time as HH:MM, from 00:00 to 23:59")
      .default("09:00"),
  })
  .strict()
  .prefault({});
