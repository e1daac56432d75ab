import { z } from "zod";
import { ALERT_LEVELS } from "../../../vocabulary/notifications";
import { defineStep } from "../../_kit/define";
import { template } from "../../_kit/fields";
import { channelSpecs } from "../../channels/channels.generated";
import { stepFieldsOfChannels } from "./channel-fields";

/** The channels in the order the step lists them (each channel's `step.order`). */
const channels = [...channelSpecs].sort((a, b) => a.step.order - b.step.order);

export const CHANNEL_NAMES = channels.map((c) => c.type) as [string, ...string[]];

/** Why an empty channel list is refused at every gate (deploy, REST, import, MCP, the editor's form). */
export const NO_CHANNELS = "a notification must reach someone: choose at least one channel, or leave channels out to use the alert level's default channels";

const { words, options } = stepFieldsOfChannels(channels);

/** The step's words fields: the message, then each channel's own (`<channel>_template`). */
export const WORDS_KEYS = ["message_template", ...Object.keys(words)] as const;

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
      // Each channel's own words (`<channel>_template`), then each channel's options: declared by the channel.
      ...words,
      ...options,
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
