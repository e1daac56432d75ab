/** The `pipeline` settings section: how long a step and a whole run may take. */
import { z } from "zod";

export const pipelineSettings = z
  .object({
    step_timeout_seconds: z.number().positive().default(60),
    execution_timeout_minutes: z.number().positive().default(5),
  })
  .strict()
  .prefault({});
