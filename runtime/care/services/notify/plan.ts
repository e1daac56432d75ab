/**
 * A notification as sent: what the first send used and what an escalation re-sends. It is
 * stored on the alert (`alerts.notification_json`) so a re-send after a restart says the
 * same thing through the same channels.
 */
import type { ChannelOptions } from "../../../../nodes/_kit/types";

export type { ChannelOptions };

export interface NotificationPlan {
  alert_level: string;
  channels: string[];
  /** The rendered message of each channel. */
  messages: Record<string, string>;
  room_name: string | null;
  image_url: string | null;
  /** The trigger's media (camera frames); the chat channel sends the first as a photo. */
  media_paths?: string[];
  execution_id: number | null;
  /** The chat whose command started the run: an alert-less message answers only that chat. */
  reply_chat_id?: string | null;
  /** The step's options for the channels (each channel spec's `step.options`). */
  options: ChannelOptions;
  /** Null when the level does not escalate. */
  escalation: { interval_minutes: number; repeat_count: number } | null;
}

export function parsePlan(value: unknown): NotificationPlan | null {
  if (value === null || typeof value !== "object") return null;
  const p = value as Partial<NotificationPlan>;
  if (typeof p.alert_level !== "string" || !Array.isArray(p.channels) || p.messages === null || typeof p.messages !== "object") return null;
  return {
    alert_level: p.alert_level,
    channels: p.channels.filter((c): c is string => typeof c === "string"),
    messages: p.messages,
    room_name: p.room_name ?? null,
    image_url: p.image_url ?? null,
    media_paths: Array.isArray(p.media_paths) ? p.media_paths.filter((m): m is string => typeof m === "string") : [],
    execution_id: p.execution_id ?? null,
    reply_chat_id: typeof p.reply_chat_id === "string" ? p.reply_chat_id : null,
    options: p.options ?? {},
    escalation: p.escalation ?? null,
  };
}
