import type { z } from "zod";
import type { ChannelHandler } from "../../_kit/handler-types";
import { screens } from "../../_kit/words";
import type { spec } from "./announcement.node";

type Config = z.output<typeof spec.config>;

/**
 * Speaks the message in every web app on `/ws`: PCM streamed while the TTS service makes it
 * (`stream`), or a link to a stored clip (`file`). No client connected is *not delivered*.
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  const spoken = await ctx.services.webapp.announce({ text: message.message, mode: config.mode, voice: config.voice, language: config.language }, ctx.signal);
  if (!spoken.ok) return { channel: "announcement", delivered: false, detail: spoken.reason };
  const { clients, mode, bytes } = spoken.value;
  return { channel: "announcement", delivered: true, detail: `spoken aloud on ${screens(clients)} (${mode}, ${bytes} bytes of audio)` };
};
