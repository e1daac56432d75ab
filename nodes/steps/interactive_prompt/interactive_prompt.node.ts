import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { template } from "../../_kit/fields";

export const DEFAULT_POPUP_MESSAGE = "Are you okay?";

const filled = (s: string | undefined) => s !== undefined && s.trim() !== "";

export const spec = defineStep({
  type: "interactive_prompt",
  displayName: "Ask the senior",
  category: "action",
  description: "Asks the senior a question by popup and/or voice and waits for “I need help” or “I'm okay”.",
  version: 1,
  config: z
    .object({
      voice_prompt_template: template("What the voice companion says", { multiline: true }).optional(),
      popup_message_template: template("Popup question; set it empty for a voice-only prompt", { multiline: true }).default(DEFAULT_POPUP_MESSAGE),
      popup_title: z.string().default("Question for You").describe("Popup title"),
      escalate_button_text: z.string().min(1).default("I need help").describe("Label of the button that escalates"),
      dismiss_button_text: z.string().min(1).default("I'm okay").describe("Label of the button that dismisses"),
      countdown_seconds: z.number().int().min(5).max(300).default(30).describe("Seconds to answer before timeout_action applies"),
      timeout_action: z.enum(["escalate", "dismiss"]).default("escalate").describe("What an unanswered prompt counts as"),
      auto_escalate: z
        .boolean()
        .default(false)
        .describe("Raise an emergency alert from this step when the answer is `escalate`, without a notification step after it"),
      voice_instruction: template("Overrides the voice companion's instruction for this prompt", { multiline: true }).optional(),
      output_key: z.string().min(1).default("interactive_response").describe("pipeline_data key the answer is written to"),
    })
    .strict()
    .superRefine((c, ctx) => {
      if (!filled(c.popup_message_template) && !filled(c.voice_prompt_template)) {
        ctx.addIssue({
          code: "custom",
          path: ["popup_message_template"],
          message: "a popup message or a voice prompt (voice_prompt_template) is required",
        });
      }
    }),
  outputPorts: ["main"],
  outputs: [
    {
      key: "interactive_response",
      type: "object",
      description: "channel (pwa_popup_text, pwa_realtime_ai or timeout), action (escalate or dismiss), timestamp, raw_response (key = output_key)",
    },
  ],
  palette: { color: "#FDD0A2", icon: "font-awesome/fa-question-circle" },
});
