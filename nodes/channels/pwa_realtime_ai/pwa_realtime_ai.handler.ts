import type { z } from "zod";
import { NO_WEB_APP } from "../../../vocabulary/tablet";
import { NO_VOICE_MODEL } from "../../../vocabulary/voice";
import { screens } from "../../_kit/words";
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
  let why = NO_VOICE_MODEL;
  if (ctx.services.webapp.realtimeConfigured()) {
    const instruction = config.voice_instruction?.trim() ? ctx.services.templates.render(config.voice_instruction, message.pipeline_data).trim() : null;
    const talking = await ctx.services.webapp.converse({ reason: "notification", text: message.message, instruction: instruction || null }, ctx.signal);
    if (talking.ok) {
      const { session_id, model, clients, joined } = talking.value;
      return {
        channel: "pwa_realtime_ai",
        delivered: true,
        detail: `${joined ? "added to the conversation going on" : "conversation started"} (${session_id}, ${model}) on ${screens(clients)}`,
      };
    }
    why = talking.reason;
  }
  const shown = ctx.services.webapp.broadcast({
    type: message.alert_level,
    message: message.message,
    room: message.room_name,
    ...(message.image_url ? { image_url: message.image_url } : {}),
    ...(message.alert_id ? { alert_id: message.alert_id } : {}),
    spoken: true,
  });
  // Nobody there: that is the whole reason, said once.
  if (shown === 0) return { channel: "pwa_realtime_ai", delivered: false, detail: why === NO_WEB_APP ? NO_WEB_APP : `${why}, and ${NO_WEB_APP}` };
  const spoken = await ctx.services.webapp.announce({ text: message.message, mode: "stream" }, ctx.signal);
  const voice = spoken.ok ? `read aloud on ${screens(spoken.value.clients)}` : `not spoken (${spoken.reason})`;
  return {
    channel: "pwa_realtime_ai",
    delivered: true,
    detail: `${why}: shown instead on ${screens(shown)}, ${voice}`,
  };
};
