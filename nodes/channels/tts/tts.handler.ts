import type { z } from "zod";
import type { ChannelHandler } from "../../_kit/handler-types";
import { screens } from "../../_kit/words";
import { speakOnHub } from "./speak-on-hub";
import type { spec } from "./tts.node";

type Config = z.output<typeof spec.config>;

/**
 * The household's own TTS (model, voice, speed, language) played on a hub speaker. When no
 * hub speaker can play it (no hub, no speaker, the hub refused), the same speech is played in
 * the web apps on `/ws` instead (the announcement's file mode), and the receipt says both.
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  const speech = { model: config.model, voice: config.voice, language: config.language, speed: config.speed };
  const onHub = await speakOnHub(ctx, message, "tts", { media_player: config.media_player ?? null, ...speech });
  if (onHub.delivered) return onHub;
  const inApp = await ctx.services.webapp.announce({ text: message.message, mode: "file", ...speech }, ctx.signal);
  if (!inApp.ok) return { channel: "tts", delivered: false, detail: `${onHub.detail ?? "no hub speaker"}; not played in the web app either: ${inApp.reason}` };
  return {
    channel: "tts",
    delivered: true,
    detail: `no hub speaker (${onHub.detail ?? "unavailable"}): played on ${screens(inApp.value.clients)} instead`,
  };
};
