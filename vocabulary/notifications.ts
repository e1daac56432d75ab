/** A notification as a step asks for it, and what its send reached. */

type Data = Readonly<Record<string, unknown>>;

/** How urgent a notification is, most urgent first; a level picks the default channels and escalation. */
export const ALERT_LEVELS = ["emergency", "warning", "info", "reminder"] as const;

/** The notification step's config as the notify service reads it: level, channels, templates, channel options. */
export type NotificationRequest = Data & { alert_level: string; channels?: string[]; message_template?: string };

export interface NotificationSent {
  /** One per channel, in the send's channel order. */
  receipts: DeliveryReceipt[];
  /** What each channel said. */
  messages: Record<string, string>;
  /** Each channel's name for people ("Tablet popup"), for the step's warning. */
  names: Record<string, string>;
}

/** What one channel of a send did. */
export interface DeliveryReceipt {
  channel: string;
  delivered: boolean;
  detail?: string;
  /** Tried because every channel of the send failed (the fallback, docs/notifications.md). */
  fallback?: boolean;
}
