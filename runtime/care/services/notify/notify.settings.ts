/** The `notifications` settings section: each channel's household-wide defaults, the alert levels and the fallback routes (docs/notifications.md). */
import { z } from "zod";
import { languageTag } from "../../../platform/config/settings-kit";

/**
 * The fallback routes of a send whose every channel failed: the family's own first (who can act
 * on it), then the household's screens and speakers, which are used only when the level's
 * default channels include them (docs/decisions.md "Fallback channels").
 */
export const FALLBACK_ORDER = ["chat_app", "hub_notify", "webhook", "pwa_popup_text", "hub_speaker_tts", "tts", "announcement", "eink"] as const;

const level = z
  .object({
    channels: z.array(z.string()),
    escalation_minutes: z.number().positive().nullable().default(null),
    repeat_count: z.number().int().min(0).default(0),
  })
  .strict();

/** Default channel sets and escalation of each alert level (the spec's table). */
export const DEFAULT_LEVELS = {
  emergency: { channels: ["pwa_popup_text", "chat_app", "eink", "hub_speaker_tts"], escalation_minutes: 5, repeat_count: 3 },
  warning: { channels: ["pwa_popup_text", "chat_app", "eink", "pwa_realtime_ai"], escalation_minutes: 10, repeat_count: 3 },
  info: { channels: ["pwa_popup_text"], escalation_minutes: null, repeat_count: 0 },
  reminder: { channels: ["pwa_popup_text", "hub_speaker_tts", "eink"], escalation_minutes: null, repeat_count: 0 },
} as const;

export const notificationsSettings = z
  .object({
    webhook: z
      .object({
        url: z.string().url().nullable().default(null),
        timeout_seconds: z.number().positive().default(10),
        headers: z.record(z.string(), z.string()).prefault({}),
      })
      .strict()
      .prefault({}),
    levels: z.object({ emergency: level, warning: level, info: level, reminder: level }).partial().strict().prefault({}),
    chat_app: z
      .object({
        targets: z
          .array(
            z
              .object({
                name: z.string(),
                chat_id: z.union([z.string(), z.number()]),
                alert_levels: z.array(z.string()).default([]),
                // The language the bot speaks in this chat (BCP 47); not set: app.language.
                language: languageTag.optional(),
              })
              .strict(),
          )
          .default([]),
        max_image_side: z.number().int().positive().default(1920),
        // The chat service's Bot API (Telegram's protocol): the client calls
        // `<api_base_url>/bot<token>/<method>`; a self-hosted Bot API server or a test's fake is another URL.
        api_base_url: z.string().url().default("https://api.telegram.org"),
        // The bot's token is a secret: CAREFLOW_CHAT_TOKEN keeps it out of the settings file.
        token: z.string().min(1).nullable().default(null),
        // How updates (button presses, replies, commands) arrive: long polling needs no public endpoint.
        mode: z.enum(["polling", "webhook"]).default("polling"),
        // Webhook mode: the secret the chat service sends in X-Telegram-Bot-Api-Secret-Token.
        webhook_secret: z.string().min(16).nullable().default(null),
        poll_timeout_seconds: z.number().int().min(0).max(50).default(25),
        // Commands a chat_app rule may fire on (without the slash).
        commands: z.array(z.string().regex(/^[a-z0-9_]{1,32}$/)).default(["status", "where", "checkin"]),
        // The escalation ladder: when set, an alert first goes to these targets (by name) only,
        // and to every target from the first re-send at least `everyone_after_minutes` later.
        first_targets: z.array(z.string()).default([]),
        everyone_after_minutes: z.number().min(0).default(5),
        // Longest a 429's retry_after is waited for before the send is reported failed.
        max_retry_after_seconds: z.number().min(0).default(30),
      })
      .strict()
      .prefault({}),
    // When every channel of a send failed: the routes tried next, in order (docs/notifications.md).
    fallback: z
      .object({
        order: z.array(z.enum([...FALLBACK_ORDER, "pwa_realtime_ai"])).default([...FALLBACK_ORDER]),
        // The hub's notify service that reaches the family's phones (notify.mobile_app_anna); null: no hub notify.
        hub_notify_service: z
          .string()
          .regex(/^notify\.[a-z0-9_]+$/, "a notify service, e.g. notify.family")
          .nullable()
          .default(null),
      })
      .strict()
      .prefault({}),
    eink: z
      .object({
        default_targets: z.array(z.string()).default([]),
        default_template: z.string().nullable().default(null),
        default_expiry_minutes: z.number().positive().default(30),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});
