/**
 * Saving a step checks its config against its type and every template and condition in
 * it, with the one grammar the engine runs. Syntax errors are 422; a reference to a key
 * nothing writes is only a warning (reported by /validate), since data may come from
 * outside the rule.
 */
import { checkConfig, configJsonSchema } from "../../../../nodes/_kit/config";
import { markedStrings } from "../../../../nodes/_kit/fields";
import type { NodeSpec } from "../../../../nodes/_kit/types";
import { ValidationError } from "../../../platform/core/errors";
import { compileCondition } from "../language/conditions";
import { analyzeTemplate } from "../language/templates";

export interface TextProblem {
  field: string;
  message: string;
  position: number;
}

export interface Reference {
  field: string;
  root: string;
  path: string;
  position: number;
}

/** Syntax problems and references of the template and expression fields of a config. */
export function inspectTexts(spec: NodeSpec, config: Record<string, unknown>): { problems: TextProblem[]; references: Reference[] } {
  const problems: TextProblem[] = [];
  const references: Reference[] = [];
  for (const m of markedStrings(configJsonSchema(spec), config)) {
    if (m.marker === "expression") {
      if (!m.value.trim()) continue;
      const compiled = compileCondition(m.value);
      if (!compiled.ok) problems.push({ field: m.field, message: compiled.error.message, position: compiled.error.position });
      else for (const r of compiled.references) if (!r.itemScoped) references.push({ field: m.field, root: r.root, path: r.path, position: r.start });
    } else {
      const analysis = analyzeTemplate(m.value);
      for (const e of analysis.errors) problems.push({ field: m.field, message: e.message, position: e.position });
      for (const r of analysis.references) if (!r.itemScoped) references.push({ field: m.field, root: r.root, path: r.path, position: r.start });
    }
  }
  return { problems, references };
}

/**
 * The config to store for a step or context, or a 422 naming each bad field and, when given,
 * the place (`rule 'Morning medication', step 'remind'`), as a deploy names it.
 */
export function validatedConfig(spec: NodeSpec, raw: unknown, prefix: string, where?: string): Record<string, unknown> {
  const refuse = (lines: string[]) => new ValidationError(`${where ? `${where}: ` : ""}${lines.join("; ")}`);
  if (raw !== undefined && (raw === null || typeof raw !== "object" || Array.isArray(raw))) throw refuse([`${prefix}: must be an object`]);
  const check = checkConfig(spec, raw ?? {});
  if (!check.ok) throw refuse(check.problems.map((p) => `${prefix}.${p.message}`));
  const { problems } = inspectTexts(spec, check.config);
  if (problems.length) throw refuse(problems.map((p) => `${prefix}.${p.field}: ${p.message}`));
  return check.config;
}
