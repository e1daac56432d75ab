import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { householdRef, knowledgeRef, template } from "../../_kit/fields";

export const CARD_CHANNELS = ["pwa", "eink", "voice"] as const;

export const spec = defineStep({
  type: "info_card",
  displayName: "Show an info card",
  category: "action",
  description: "Shows an approved info card of the knowledge repository on the web app, the e-ink displays and by voice, and records it.",
  version: 1,
  requiredToRun: ["card_id"],
  config: z
    .object({
      card_id: knowledgeRef("info_card", "The approved info card to show").optional(),
      channels: z
        .array(z.enum(CARD_CHANNELS))
        .min(1, "choose at least one channel")
        .default(["pwa"])
        .describe("pwa: the web app; eink: the e-ink displays (black and white picture); voice: the voice companion says it"),
      eink_targets: z.array(householdRef("sensor", "An e-ink display")).optional().describe("E-ink sensor ids; empty = the displays a notification would use"),
      eink_expiry_minutes: z.number().positive().max(43200).default(30).describe("Minutes until the displays return to their default card"),
      voice_instruction: template("Overrides the card's voice instruction for this step", { multiline: true }).optional(),
    })
    .strict(),
  outputPorts: ["main"],
  outputs: [
    {
      key: "info_card",
      type: "object",
      description: "delivery_id, card_id, title, and receipts: per channel delivered (true/false) and detail",
    },
  ],
  palette: { color: "#D4E8C4", icon: "font-awesome/fa-id-card-o" },
});
