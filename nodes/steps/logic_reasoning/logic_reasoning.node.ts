import { defineStep } from "../../_kit/define";
import { llmCallConfig, llmCallOutputs } from "../llm_call/llm-call-config";

export const spec = defineStep({
  type: "logic_reasoning",
  displayName: "Logic reasoning (legacy)",
  category: "reasoning",
  description: "Legacy step kept for older rules; runs as an llm_call writing `logic_response`. Use llm_call for new rules.",
  version: 1,
  requiredToRun: ["model_id"],
  config: llmCallConfig("logic_response"),
  outputPorts: ["main"],
  outputs: llmCallOutputs("logic_response"),
  deprecated: { replacedBy: "llm_call" },
  palette: { color: "#E6E0F8", icon: "font-awesome/fa-lightbulb-o" },
});
