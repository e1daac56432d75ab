import type { z } from "zod";
import type { ChannelHandler } from "../../_kit/handler-types";
import { speakOnHub } from "../tts/speak-on-hub";
import type { spec } from "./hub_speaker_tts.node";

type Config = z.output<typeof spec.config>;

/** Speaks the message on a hub speaker: the one named, else the person's room's, else the trigger room's, else the default. */
export const handler: ChannelHandler<Config> = (ctx, message, config) =>
  speakOnHub(ctx, message, "hub_speaker_tts", { media_player: config.media_player ?? null, voice: config.voice, language: config.language });
