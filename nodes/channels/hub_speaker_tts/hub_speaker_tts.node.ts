import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { template } from "../../_kit/fields";

/** The step's speaker, for this channel and the tts channel's clip alike. */
export const hubMediaPlayer = z.string().optional().describe("Hub media player entity for tts");

export const spec = defineChannel({
  type: "hub_speaker_tts",
  displayName: "Speaker",
  description: "Speaks the message on a speaker of the home automation hub, synthesised by the household's TTS service.",
  version: 1,
  config: z
    .object({
      media_player: z
        .string()
        .regex(/^media_player\.[a-z0-9_]+$/, "use a media player entity, e.g. media_player.kitchen")
        .optional()
        .describe("Speaker entity, e.g. media_player.kitchen; the step's hub_media_player overrides it"),
      voice: z.string().optional().describe("Voice; empty = tts.default_voice"),
      language: z.string().optional().describe("Language code, e.g. en or hi; empty = tts.default_language, else the senior's language"),
    })
    .strict(),
  step: {
    order: 4,
    words: template("Hub speaker text override", { title: "Speaker's words" }).optional(),
    options: { hub_media_player: hubMediaPlayer },
  },
  configFrom: (options) => (typeof options.hub_media_player === "string" && options.hub_media_player ? { media_player: options.hub_media_player } : {}),
  palette: { color: "#F3B567", icon: "font-awesome/fa-volume-up" },
});
