import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { template } from "../../_kit/fields";
import { ALERT_LEVELS } from "../../../vocabulary/notifications";

export const chatTarget = z
  .object({
    name: z.string().min(1).describe("Who this is, e.g. Daughter"),
    chat_id: z.union([z.string().min(1), z.number().int()]).describe("Chat id"),
    alert_levels: z.array(z.enum(ALERT_LEVELS)).default([]).describe("Levels sent to this chat; empty = all"),
    language: z.string().min(1).max(35).optional().describe("The language of the bot's buttons and notes in this chat (BCP 47); not set: app.language"),
  })
  .strict();

export const spec = defineChannel({
  type: "chat_app",
  displayName: "Family chat",
  description: "Sends the message, with the run's image, to the family's chats.",
  version: 1,
  config: z
    .object({
      targets: z.array(chatTarget).optional().describe("Chats to send to; replaces notifications.chat_app.targets when given"),
      max_image_side: z.number().int().positive().default(1920).describe("Images are scaled down to this longest side, in pixels"),
      include_image: z.boolean().default(true).describe("Attach the run's image when there is one"),
    })
    .strict(),
  step: { order: 2, words: template("Chat message override", { title: "Chat message" }).optional() },
  configFrom: (_options, notifications) => ({
    targets: notifications.chat_app.targets,
    max_image_side: notifications.chat_app.max_image_side,
  }),
  palette: { color: "#F3B567", icon: "font-awesome/fa-paper-plane" },
});
