import { defineStep } from "../../_kit/define";
import { llmCallConfig, llmCallOutputs } from "../llm_call/llm-call-config";

export const spec = defineStep({
  type: "translation",
  displayName: "Translation (legacy)",
  category: "reasoning",
  description: "Legacy step kept for older rules; runs as an llm_call writing `translation`. Use llm_call for new rules.",
  version: 1,
  requiredToRun: ["model_id"],
  config: llmCallConfig("translation"),
  outputPorts: ["main"],
  outputs: llmCallOutputs("translation"),
  deprecated: { replacedBy: "llm_call" },
  palette: { color: "#E6E0F8", icon: "font-awesome/fa-language" },
});
