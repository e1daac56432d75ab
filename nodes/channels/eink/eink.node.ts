import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { householdRef, template } from "../../_kit/fields";

export const spec = defineChannel({
  type: "eink",
  displayName: "E-ink display",
  description: "Renders the message onto an e-ink template and shows it on the household's displays.",
  version: 1,
  config: z
    .object({
      targets: z.array(z.string()).default([]).describe("Display sensor ids; empty = notifications.eink.default_targets, else every display"),
      template_id: z
        .union([z.string().min(1), z.number().int()])
        .optional()
        .describe("E-ink template; empty = notifications.eink.default_template"),
      expiry_minutes: z.number().positive().default(30).describe("Minutes until the display returns to its default card"),
      dither: z.boolean().default(false).describe("Dither the rendered image for black-and-white panels; off keeps text crisp"),
    })
    .strict(),
  step: {
    order: 3,
    words: template("E-ink text override", { title: "E-ink text" }).optional(),
    options: {
      eink_targets: z.array(householdRef("sensor", "An e-ink display")).optional().describe("E-ink sensor ids; empty = all displays"),
      eink_template_id: z.union([z.string(), z.number().int()]).optional().describe("E-ink template"),
      eink_expiry_minutes: z.number().positive().default(30).describe("Minutes until the display returns to its default card"),
    },
  },
  configFrom: (options, notifications) => ({
    targets: options.eink_targets ?? [],
    template_id: options.eink_template_id,
    expiry_minutes: options.eink_expiry_minutes ?? notifications.eink.default_expiry_minutes,
  }),
  palette: { color: "#F3B567", icon: "font-awesome/fa-television" },
});
