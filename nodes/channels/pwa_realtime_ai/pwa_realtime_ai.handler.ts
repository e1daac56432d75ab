import type { z } from "zod";
import type { ChannelHandler } from "../../_kit/handler-types";
import type { spec } from "./pwa_realtime_ai.node";

type Config = z.output<typeof spec.config>;

/**
 * The voice companion. Until the realtime bridge exists, and whenever no realtime model is
 * configured, it falls back to what every web app can do: the message on screen (the popup
 * frame, with its button) and spoken with the household's TTS voice (the announcement
 * stream). The receipt says so. Delivered when the popup reached a client; a failed voice is
 * named in the detail.
 */
export const handler: ChannelHandler<Config> = async (ctx, message) => {
  const why = ctx.services.webapp.realtimeConfigured()
    ? "the realtime voice companion is not available yet"
    : "no realtime voice model is configured (llm.realtime)";
  const shown = ctx.services.webapp.broadcast({
    type: message.alert_level,
    message: message.message,
    room: message.room_name,
    ...(message.image_url ? { image_url: message.image_url } : {}),
    spoken: true,
  });
  if (shown === 0) return { channel: "pwa_realtime_ai", delivered: false, detail: `${why}; fallback not possible: no web app client is connected to /ws` };
  const spoken = await ctx.services.webapp.announce({ text: message.message, mode: "stream" }, ctx.signal);
  const voice = spoken.ok ? `spoken with the TTS voice in ${spoken.value.clients}` : `not spoken (${spoken.reason})`;
  return {
    channel: "pwa_realtime_ai",
    delivered: true,
    detail: `fallback: ${why}; shown on screen in ${shown} web app client(s), ${voice}`,
  };
};
