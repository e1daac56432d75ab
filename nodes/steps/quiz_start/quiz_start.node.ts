import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { householdRef, knowledgeRef, template } from "../../_kit/fields";

export const spec = defineStep({
  type: "quiz_start",
  displayName: "Start a quiz",
  category: "action",
  description: "Starts an approved quiz on the web app (tap or voice) and waits for it to end; the run continues with the score.",
  version: 1,
  requiredToRun: ["quiz_id"],
  config: z
    .object({
      quiz_id: knowledgeRef("quiz", "The approved quiz to put to the senior").optional(),
      senior_id: householdRef("person", "The person quizzed (for the dedupe window and the records)").optional(),
      dedupe_minutes: z
        .number()
        .int()
        .min(0)
        .max(43200)
        .default(720)
        .describe("The same quiz started for this person within these minutes is not started again (0: always start)"),
      timeout_minutes: z.number().positive().max(1440).default(30).describe("Minutes an unfinished quiz stays open before it ends as timed_out"),
      voice_instruction: template("Overrides the quiz's voice instruction for this step", { multiline: true }).optional(),
    })
    .strict(),
  outputPorts: ["main", "skipped"],
  outputs: [
    {
      key: "quiz",
      type: "object",
      description:
        "session_id, quiz_id, status (completed, abandoned, timed_out; skipped on the skipped port), score (0–100), correct, answered, total, completed_at",
    },
  ],
  palette: { color: "#D4E8C4", icon: "font-awesome/fa-graduation-cap" },
});
