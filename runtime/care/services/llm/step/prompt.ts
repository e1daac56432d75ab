/**
 * The text an llm_call sends: special_instructions and prompt rendered against pipeline_data,
 * then the context keys as JSON, then what the answer must look like.
 */
import { resolvePath } from "../../../core/language/conditions";
import { renderTemplate } from "../../../core/language/templates";

export interface PromptConfig {
  prompt: string;
  special_instructions?: string;
  include_context: string[];
  response_format: "text" | "json_schema" | "json_free";
  response_schema?: string;
  response_json_schema?: string;
}

/** Keys sent when include_context is empty, each only when present. */
export const AUTO_CONTEXT_KEYS = ["person_detections", "vision_response"] as const;

/** `guided`: the schema goes to the server as guided_json, so the prompt need not carry it. */
export function buildPrompt(config: PromptConfig, data: Readonly<Record<string, unknown>>, guided: boolean): string {
  const special = config.special_instructions?.trim() ? `${config.special_instructions}\n\n` : "";
  const parts = [renderTemplate(special + config.prompt, data).trim()];
  const context = contextOf(config.include_context, data);
  if (Object.keys(context).length > 0) parts.push(`Context (JSON):\n${JSON.stringify(context, null, 2)}`);
  if (config.response_schema?.trim()) parts.push(`Response format: ${config.response_schema.trim()}`);
  if (config.response_format === "json_schema" && !guided) {
    parts.push(`Answer with only a JSON object that conforms to this JSON Schema, and no other text:\n${config.response_json_schema ?? "{}"}`);
  } else if (config.response_format === "json_free") {
    parts.push("Answer with only a JSON object, and no other text.");
  }
  return parts.filter((p) => p !== "").join("\n\n");
}

/** The listed keys (dotted paths allowed) that have a value; absent ones are left out. */
export function contextOf(keys: readonly string[], data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const wanted = keys.length > 0 ? keys : AUTO_CONTEXT_KEYS;
  const out: Record<string, unknown> = {};
  for (const key of wanted) {
    const value = resolvePath(data, key);
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}
