import { z } from "zod";
import { defineChannel } from "../../_kit/define";

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
  stepOptions: ["hub_media_player"],
  configFrom: (options) => (typeof options.hub_media_player === "string" && options.hub_media_player ? { media_player: options.hub_media_player } : {}),
  palette: { color: "#F3B567", icon: "font-awesome/fa-volume-up" },
});
