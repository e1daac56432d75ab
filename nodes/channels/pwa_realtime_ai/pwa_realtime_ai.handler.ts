import type { z } from "zod";
import { NO_WEB_APP } from "../../_kit/care-services";
import type { ChannelHandler } from "../../_kit/handler-types";
import type { spec } from "./pwa_realtime_ai.node";

type Config = z.output<typeof spec.config>;

/**
 * The voice companion talks with the senior about the message: a conversation with the
 * realtime model in the web app (or the message added to the one going on). Without a
 * realtime model, or when it cannot be reached, it falls back to what every web app can do:
 * the message on screen (the popup frame, with its button) and spoken with the household's
 * TTS voice (the announcement stream). The receipt says which, and why.
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  let why = "no realtime voice model is configured (llm.realtime)";
  if (ctx.services.webapp.realtimeConfigured()) {
    const instruction = config.voice_instruction?.trim() ? ctx.services.templates.render(config.voice_instruction, message.pipeline_data).trim() : null;
    const talking = await ctx.services.webapp.converse({ reason: "notification", text: message.message, instruction: instruction || null }, ctx.signal);
    if (talking.ok) {
      const { session_id, model, clients, joined } = talking.value;
      return {
        channel: "pwa_realtime_ai",
        delivered: true,
        detail: `${joined ? "added to the conversation going on" : "conversation started"} (${session_id}, ${model}) in ${clients} web app client(s)`,
      };
    }
    why = talking.reason;
  }
  const shown = ctx.services.webapp.broadcast({
    type: message.alert_level,
    message: message.message,
    room: message.room_name,
    ...(message.image_url ? { image_url: message.image_url } : {}),
    spoken: true,
  });
  // Nobody there: that is the whole reason, said once.
  if (shown === 0)
    return { channel: "pwa_realtime_ai", delivered: false, detail: why === NO_WEB_APP ? NO_WEB_APP : `${why}; fallback not possible: ${NO_WEB_APP}` };
  const spoken = await ctx.services.webapp.announce({ text: message.message, mode: "stream" }, ctx.signal);
  const voice = spoken.ok ? `spoken with the TTS voice in ${spoken.value.clients}` : `not spoken (${spoken.reason})`;
  return {
    channel: "pwa_realtime_ai",
    delivered: true,
    detail: `fallback: ${why}; shown on screen in ${shown} web app client(s), ${voice}`,
  };
};
