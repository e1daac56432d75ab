import type { z } from "zod";
import type { ChannelHandler, ChannelMessage } from "../../_kit/handler-types";
import type { ChatTarget } from "../../../vocabulary/chat";
import type { spec } from "./chat_app.node";

type Config = z.output<typeof spec.config>;

/** The targets whose `alert_levels` include the level (an empty list takes every level). */
export function targetsFor(targets: readonly ChatTarget[], level: string): ChatTarget[] {
  return targets.filter((t) => t.alert_levels.length === 0 || t.alert_levels.includes(level));
}

/**
 * Who gets a message: the chat that asked, when a chat command started the run and the message
 * raises no alert (the answer to `/status` is for the one who asked, in that chat even when its
 * levels would not take it); otherwise each target whose levels include the message's. An alert
 * raised by a command still reaches everyone it would: the family must hear about it.
 */
export function recipientsOf(targets: readonly ChatTarget[], message: ChannelMessage): ChatTarget[] {
  const asking = message.reply_chat_id;
  if (!asking || (message.alert_id ?? null) !== null) return targetsFor(targets, message.alert_level);
  const known = targets.find((t) => String(t.chat_id) === asking);
  return [known ?? { name: "the chat that asked", chat_id: asking, alert_levels: [] }];
}

/**
 * Sends the channel's text (`chat_app_template`, else the message) to each target whose levels
 * include the alert's, with the triggering frame (the trigger's first media path) as a photo
 * scaled to `max_image_side`. Delivered when at least one chat got it; the detail names each
 * target's outcome (a failed chat says why: rate limited, chat not found, ...).
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  const targets = recipientsOf(config.targets ?? [], message);
  if (targets.length === 0) return { channel: "chat_app", delivered: false, detail: `no family chat is set up for the ${message.alert_level} level` };
  const framePath = config.include_image ? message.media_paths?.[0] : undefined;
  const photo = framePath ? await ctx.services.media.read(framePath).catch(() => null) : null;
  const answer = await ctx.services.chat.send(
    {
      targets,
      text: message.message,
      photo,
      max_image_side: config.max_image_side,
      alert_level: message.alert_level,
      alert_id: message.alert_id ?? null,
      escalation: message.escalation ?? 0,
    },
    ctx.signal,
  );
  if (!answer.ok) return { channel: "chat_app", delivered: false, detail: answer.reason };
  const results = answer.value;
  const detail = results.map((r) => `${r.target}: ${r.delivered ? "delivered" : r.detail}`).join("; ");
  return { channel: "chat_app", delivered: results.some((r) => r.delivered), detail: detail || "no chat was sent to" };
};
