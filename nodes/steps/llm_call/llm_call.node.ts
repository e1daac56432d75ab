import { defineStep } from "../../_kit/define";
import { llmCallConfig, llmCallOutputs } from "./llm-call-config";

export const spec = defineStep({
  type: "llm_call",
  displayName: "LLM call",
  category: "reasoning",
  description: "Asks a language or vision model from the llm.models registry, optionally with camera images.",
  version: 1,
  requiredToRun: ["model_id"],
  config: llmCallConfig("llm_response"),
  outputPorts: ["main"],
  outputs: llmCallOutputs("llm_response"),
  palette: { color: "#E6E0F8", icon: "font-awesome/fa-comments" },
});
