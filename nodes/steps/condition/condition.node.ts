import { z } from "zod";
import { defineStep } from "../../_kit/define";
import { expression } from "../../_kit/fields";

export const spec = defineStep({
  type: "condition",
  displayName: "Condition",
  category: "flow",
  description: "Checks an expression against pipeline data and continues on the true or false port.",
  version: 1,
  config: z
    .object({
      expression: expression("Condition, e.g. `scene_hazards.count > 0` or `signals | filter(kind == 'pacing') | length > 0`").default(""),
      trigger_cooloff: z.boolean().default(false).describe("Mark the run cool-off-worthy when the result is true"),
    })
    .strict(),
  outputPorts: ["true", "false"],
  outputs: [
    { key: "condition.expression", type: "string", description: "The expression evaluated" },
    { key: "condition.result", type: "boolean", description: "Its result" },
    { key: "condition.branch", type: "string", description: "`true` or `false`, the port taken" },
    { key: "_cooloff_triggered", type: "boolean", description: "Set when trigger_cooloff is on and the result is true" },
  ],
  palette: { color: "#E2D96E", icon: "switch.svg" },
});
