/** The `image` settings section: when a display fetches its next image. */
import { z } from "zod";

export const imageSettings = z
  .object({ refresh_window_minutes: z.number().min(0).default(60) })
  .strict()
  .prefault({});
