import { z } from "zod";
import { defineChannel } from "../../_kit/define";
import { template } from "../../_kit/fields";

export const spec = defineChannel({
  type: "pwa_realtime_ai",
  displayName: "Voice companion",
  description: "Has the web app's realtime voice companion talk to the senior about the message.",
  version: 1,
  config: z
    .object({
      voice_instruction: template("How the companion should speak, e.g. calmly and briefly; adds to its base instruction", {
        multiline: true,
      }).optional(),
    })
    .strict(),
  step: { order: 5, words: template("What the voice companion says", { title: "Voice companion's words" }).optional() },
  palette: { color: "#F3B567", icon: "font-awesome/fa-microphone" },
});
