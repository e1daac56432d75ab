import { defineStep } from "../../_kit/define";
import { llmCallConfig, llmCallOutputs } from "../llm_call/llm-call-config";

export const spec = defineStep({
  type: "vision_analysis",
  displayName: "Vision analysis (legacy)",
  category: "perception",
  description: "Legacy step kept for older rules; runs as an llm_call writing `vision_response`. Use llm_call for new rules.",
  version: 1,
  requiredToRun: ["model_id"],
  config: llmCallConfig("vision_response"),
  outputPorts: ["main"],
  outputs: llmCallOutputs("vision_response"),
  deprecated: { replacedBy: "llm_call" },
  palette: { color: "#A6BBCF", icon: "font-awesome/fa-eye" },
});
