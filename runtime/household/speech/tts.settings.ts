/** The `tts` settings section: the speech service and its default voice. */
import { z } from "zod";

export const ttsSettings = z
  .object({
    url: z.string().url().default("http://127.0.0.1:8090"),
    default_model: z.string().default("svara"),
    default_voice: z.string().default("default"),
    default_speed: z.number().min(0.25).max(4).default(1),
    // Not set: careflow speaks in the senior's language (docs/language.md); set, every speech without its own language uses it.
    default_language: z.string().min(1).optional(),
    // The spec names it; the speech service has no styles to choose from, so a value is
    // refused rather than ignored (a voice is chosen with default_voice).
    default_style: z
      .null({ error: "careflow's speech service has no speaking styles: leave tts.default_style out and choose a voice with tts.default_voice" })
      .default(null),
  })
  .strict()
  .prefault({});
