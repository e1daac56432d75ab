import type { z } from "zod";
import type { ChannelHandler } from "../../_kit/handler-types";
import { speakOnHub } from "./speak-on-hub";
import type { spec } from "./tts.node";

type Config = z.output<typeof spec.config>;

/** The household's own TTS (model, voice, speed, language) played on a hub speaker. */
export const handler: ChannelHandler<Config> = (ctx, message, config) =>
  speakOnHub(ctx, message, "tts", {
    media_player: config.media_player ?? null,
    model: config.model,
    voice: config.voice,
    language: config.language,
    speed: config.speed,
  });
