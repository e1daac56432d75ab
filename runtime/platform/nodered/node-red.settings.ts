/** The `node_red` settings section: the embedded editor and its credential secret. */
import { z } from "zod";

export const nodeRedSettings = z
  .object({
    credential_secret: z.string().min(16).optional(),
    editor_enabled: z.boolean().default(true),
  })
  .strict()
  .prefault({});
