import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { hubMediaPlayer } from "../hub_speaker_tts/hub_speaker_tts.node";

export const spec = defineChannel({
  type: "tts",
  displayName: "Speech",
  description: "Speaks the message with the household's own text-to-speech service on a hub speaker.",
  version: 1,
  config: z
    .object({
      model: z.string().optional().describe("Speech model; empty = tts.default_model"),
      voice: z.string().optional().describe("Voice id; empty = tts.default_voice"),
      speed: z.number().min(0.25).max(4).default(1).describe("Speaking speed, 0.25–4"),
      language: z.string().optional().describe("Language code, e.g. en or hi; empty = tts.default_language, else the senior's language"),
      media_player: z
        .string()
        .regex(/^media_player\.[a-z0-9_]+$/, "use a media player entity, e.g. media_player.kitchen")
        .optional()
        .describe("Speaker entity that plays the audio; the step's hub_media_player overrides it"),
    })
    .strict(),
  // The same speaker option as the hub speaker's: one field on the step for both.
  step: { order: 7, options: { hub_media_player: hubMediaPlayer } },
  configFrom: (options) => (typeof options.hub_media_player === "string" && options.hub_media_player ? { media_player: options.hub_media_player } : {}),
  palette: { color: "#F3B567", icon: "font-awesome/fa-bullhorn" },
});
