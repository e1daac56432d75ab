/** The `recognition` settings section: the face engine that identifies persons. */
import { z } from "zod";

// Person identification: `backend` builtin (in-process face engine, the default) or remote
// (the household's identification service at `url`); below `threshold` a face is `unknown`.
export const recognitionSettings = z
  .object({
    backend: z.enum(["builtin", "remote"]).default("builtin"),
    url: z.string().default("http://127.0.0.1:8200"),
    threshold: z.number().min(0).max(1).default(0.4),
    timeout_seconds: z.number().positive().default(30),
    save_guest_images: z.boolean().default(false),
  })
  .strict()
  .prefault({});
