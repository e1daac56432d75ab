import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { householdRef, template } from "../../_kit/fields";

export const CHANNEL_NAMES = ["pwa_popup_text", "chat_app", "eink", "hub_speaker_tts", "pwa_realtime_ai", "webhook", "tts", "announcement"] as const;
export const ALERT_LEVELS = ["emergency", "warning", "info", "reminder"] as const;

/** Why an empty channel list is refused at every gate (deploy, REST, import, MCP, the editor's form). */
export const NO_CHANNELS = "a notification must reach someone: choose at least one channel, or leave channels out to use the alert level's default channels";

export const spec = defineStep({
  type: "notification",
  displayName: "Notification",
  category: "action",
  description: "Tells the senior or the family through the alert level's channels, with escalation.",
  version: 1,
  config: z
    .object({
      alert_level: z.enum(ALERT_LEVELS).default("warning").describe("Level; picks the default channels and escalation"),
      channels: z
        .array(z.enum(CHANNEL_NAMES))
        .min(1, NO_CHANNELS)
        // `level_channels`: the form offers "the level's default channels" (the field left out) beside a chosen list.
        .meta({ description: "Replaces the level's default channels; leave it out to use them", level_channels: true })
        .optional(),
      message_template: template("Message; when empty the base message is used", { multiline: true, words_preview: true }).optional(),
      pwa_popup_text_template: template("Popup text override", { title: "Popup text" }).optional(),
      chat_app_template: template("Chat message override", { title: "Chat message" }).optional(),
      pwa_realtime_ai_template: template("What the voice companion says", { title: "Voice companion's words" }).optional(),
      eink_template: template("E-ink text override", { title: "E-ink text" }).optional(),
      hub_speaker_tts_template: template("Hub speaker text override", { title: "Speaker's words" }).optional(),
      webhook_template: template("Webhook body; JSON when it parses as JSON", { title: "Webhook body" }).optional(),
      eink_targets: z.array(householdRef("sensor", "An e-ink display")).optional().describe("E-ink sensor ids; empty = all displays"),
      eink_template_id: z.union([z.string(), z.number().int()]).optional().describe("E-ink template"),
      eink_expiry_minutes: z.number().positive().default(30).describe("Minutes until the display returns to its default card"),
      webhook_url: z.string().url().optional().describe("Overrides the global webhook URL"),
      hub_media_player: z.string().optional().describe("Hub media player entity for tts"),
      announcement_mode: z
        .enum(["stream", "file"])
        .optional()
        .describe("Announcement in the web app: `stream` (default) sends audio as it is made; `file` a link to a clip"),
      trigger_cooloff: z.boolean().default(true).describe("Mark the run cool-off-worthy"),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    { key: "notification_dispatched", type: "boolean", description: "At least one channel delivered" },
    { key: "notification_channels", type: "object", description: "Channel name to delivered (bool)" },
    { key: "_cooloff_triggered", type: "boolean", description: "Set when trigger_cooloff is on" },
  ],
  palette: { color: "#F3B567", icon: "alert.svg" },
});
