/** The family's chat: who a message goes to, and what came back. */

/** A chat the family reads (`notifications.chat_app.targets`). */
export interface ChatTarget {
  name: string;
  chat_id: string | number;
  /** Levels sent to this chat; empty = all. */
  alert_levels: readonly string[];
  /** The language the bot speaks in this chat (BCP 47); not set: the household's. */
  language?: string;
}

export interface ChatSendRequest {
  /** The targets whose levels include this one (the handler chose them). */
  targets: readonly ChatTarget[];
  text: string;
  /** The triggering frame's bytes; the service scales it to `max_image_side`. */
  photo: Uint8Array | null;
  max_image_side: number;
  alert_level: string;
  /** With an alert the message carries the "I'm on it" / "Resolved" buttons and can be acknowledged by reply. */
  alert_id: number | null;
  /** 0: the first send; n: the alert's n-th re-send (the escalation ladder widens the targets). */
  escalation: number;
}

export interface ChatSendResult {
  target: string;
  delivered: boolean;
  detail: string;
}
