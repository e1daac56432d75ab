import type { z } from "zod";
import type { ChannelHandler } from "../../_kit/handler-types";
import type { ChatTarget } from "../../_kit/care-services";
import type { spec } from "./chat_app.node";

type Config = z.output<typeof spec.config>;

/** The targets whose `alert_levels` include the level (an empty list takes every level). */
export function targetsFor(targets: readonly ChatTarget[], level: string): ChatTarget[] {
  return targets.filter((t) => t.alert_levels.length === 0 || t.alert_levels.includes(level));
}

/**
 * Sends the channel's text (`chat_app_template`, else the message) to each target whose levels
 * include the alert's, with the triggering frame (the trigger's first media path) as a photo
 * scaled to `max_image_side`. Delivered when at least one chat got it; the detail names each
 * target's outcome (a failed chat says why: rate limited, chat not found, ...).
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  const targets = targetsFor(config.targets ?? [], message.alert_level);
  if (targets.length === 0) return { channel: "chat_app", delivered: false, detail: `no chat target receives ${message.alert_level}` };
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
