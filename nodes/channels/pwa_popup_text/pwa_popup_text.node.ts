import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { template } from "../../_kit/fields";

export const spec = defineChannel({
  type: "pwa_popup_text",
  displayName: "Tablet popup",
  description: "Shows the message as a popup in every open web app.",
  version: 1,
  config: z
    .object({
      include_image: z.boolean().default(true).describe("Show the run's image in the popup when there is one"),
    })
    .strict(),
  step: { order: 1, words: template("Popup text override", { title: "Popup text" }).optional() },
  palette: { color: "#F3B567", icon: "font-awesome/fa-comment" },
});
