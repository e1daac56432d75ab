/** Fills a template with values from pipeline_data. */
import { Scope } from "../conditions/evaluate";
import { toText } from "../conditions/values";
import { compileTemplate } from "./compile";

/**
 * Renders `text` against `data`. Strings as they are, numbers and booleans as text, lists and
 * objects as JSON, null or missing as nothing: a senior never reads `{{x}}` in a message.
 * Unknown references are reported when the step is saved (analyzeTemplate), not here.
 */
export function renderTemplate(text: string, data: Readonly<Record<string, unknown>>): string {
  if (!text.includes("{{")) return text;
  const scope = new Scope(data);
  let out = "";
  for (const part of compileTemplate(text).parts) out += typeof part === "string" ? part : toText(part(scope));
  return out;
}
