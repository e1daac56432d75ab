/**
 * Checks a rule as a whole: each step's config, required-to-run fields, templates and
 * expressions (with positions), references to keys nothing provides (warnings, with a
 * "did you mean"), model ids, and the graph (labels, ports, cycles). Used by
 * `POST /rules/{id}/validate` and by bundle imports, so both report the same problems.
 */
import { checkConfig, migrateConfig, MigrationError } from "../../../../nodes/_kit/config";
import type { NodeSpec } from "../../../../nodes/_kit/types";
import type { Settings } from "../../../../settings";
import { knownRoots } from "../language/catalog/catalog.service";
import { suggest } from "../language/suggest";
import { filterSpecByType, stepSpecByType, stepSpecs } from "./care-types";
import { findCycle } from "./graph-checks";
import { inspectTexts } from "./step-checks";

export interface DraftStep {
  label: string;
  step_type: string;
  config: Record<string, unknown>;
  /** Config version the config was written for; the current one when absent. */
  schema_version?: number;
  step_id?: number;
}

export interface DraftEdge {
  source_label: string;
  source_port: string;
  target_label: string;
}

export interface DraftContext {
  context_type: string;
  config: Record<string, unknown>;
  schema_version?: number;
}

export interface RuleDraft {
  steps: DraftStep[];
  edges: DraftEdge[];
  contexts: DraftContext[];
}

export interface Problem {
  field: string;
  message: string;
  step_label?: string;
  step_id?: number;
  position?: number;
  suggestion?: string;
}

export interface ValidationReport {
  valid: boolean;
  errors: Problem[];
  warnings: Problem[];
}

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "") || (Array.isArray(v) && v.length === 0);

/** A config migrated to the spec's version, or the problem that stops it. */
export function migrated(
  spec: NodeSpec,
  config: Record<string, unknown>,
  version: number | undefined,
): { config: Record<string, unknown> } | { error: string } {
  try {
    return { config: migrateConfig(spec, config, version ?? spec.version) };
  } catch (err) {
    if (err instanceof MigrationError) return { error: err.message };
    throw err;
  }
}

/** "Did you mean" for a reference nothing writes: a step's label first, then the keys known to the rule. */
function referenceHint(root: string, path: string, labels: readonly string[], roots: ReadonlySet<string>): string | undefined {
  const second = path.split(".")[1];
  if (root === "steps" && second) {
    const label = suggest(second, labels);
    return label ? `steps.${label}` : undefined;
  }
  return suggest(root, [...labels, ...roots]) ?? undefined;
}

function checkStep(
  step: DraftStep,
  where: Pick<Problem, "step_label" | "step_id">,
  roots: Set<string>,
  labels: readonly string[],
  settings: Settings,
  report: ValidationReport,
): void {
  const spec = stepSpecByType(step.step_type);
  if (!spec) {
    const hint = suggest(
      step.step_type,
      stepSpecs().map((s) => s.type),
    );
    report.errors.push({ ...where, field: "step_type", message: `unknown step type '${step.step_type}'`, ...(hint ? { suggestion: hint } : {}) });
    return;
  }
  const m = migrated(spec, step.config, step.schema_version);
  if ("error" in m) return void report.errors.push({ ...where, field: "config_json", message: m.error });
  const check = checkConfig(spec, m.config);
  if (!check.ok) {
    for (const p of check.problems) report.errors.push({ ...where, field: `config_json.${p.field}`, message: p.message });
    return;
  }
  for (const field of spec.requiredToRun ?? []) {
    if (isEmpty(check.config[field])) report.errors.push({ ...where, field: `config_json.${field}`, message: `${field}: required before the step can run` });
  }
  const { problems, references } = inspectTexts(spec, check.config);
  for (const p of problems) report.errors.push({ ...where, field: `config_json.${p.field}`, message: p.message, position: p.position });
  for (const r of references) {
    if (roots.has(r.root)) continue;
    const hint = referenceHint(r.root, r.path, labels, roots);
    report.warnings.push({
      ...where,
      field: `config_json.${r.field}`,
      message: `'${r.path}' is not written by any trigger, system key or step of this rule; it renders empty unless the data brings it`,
      position: r.position,
      ...(hint ? { suggestion: hint } : {}),
    });
  }
  const modelId = check.config.model_id;
  if (typeof modelId === "string" && modelId && !settings.llm.models.some((mdl) => mdl.id === modelId)) {
    const hint = suggest(
      modelId,
      settings.llm.models.map((mdl) => mdl.id),
    );
    report.warnings.push({
      ...where,
      field: "config_json.model_id",
      message: `model '${modelId}' is not in llm.models`,
      ...(hint ? { suggestion: hint } : {}),
    });
  }
}

function checkGraph(draft: RuleDraft, report: ValidationReport): void {
  const labels = draft.steps.map((s) => s.label);
  const index = new Map(labels.map((l, i) => [l, i]));
  draft.edges.forEach((e, i) => {
    for (const [field, label] of [
      ["source_label", e.source_label],
      ["target_label", e.target_label],
    ] as const) {
      if (!index.has(label)) {
        const hint = suggest(label, labels);
        report.errors.push({ field: `edges.${i}.${field}`, message: `no step is labelled '${label}'`, ...(hint ? { suggestion: hint } : {}) });
      }
    }
    const source = draft.steps[index.get(e.source_label) ?? -1];
    const ports = source ? stepSpecByType(source.step_type)?.outputPorts : undefined;
    if (ports && !ports.includes(e.source_port)) {
      report.errors.push({ field: `edges.${i}.source_port`, message: `step '${e.source_label}' has no port '${e.source_port}' (it has ${ports.join(", ")})` });
    }
  });
  const known = draft.edges.filter((e) => index.has(e.source_label) && index.has(e.target_label));
  const cycle = findCycle(
    labels.map((_, i) => i),
    known.map((e) => ({
      source_step_id: index.get(e.source_label)!,
      source_port: e.source_port,
      target_step_id: index.get(e.target_label)!,
      target_port: "main",
    })),
  );
  if (cycle) report.errors.push({ field: "edges", message: `the edges form a cycle (${cycle.map((i) => `'${labels[i]}'`).join(" → ")})` });
}

export function validateRuleDraft(draft: RuleDraft, settings: Settings): ValidationReport {
  const report: ValidationReport = { valid: true, errors: [], warnings: [] };
  const roots = knownRoots();
  for (const s of draft.steps) {
    const out = s.config.output_key;
    if (typeof out === "string" && out) roots.add(out);
  }
  const seen = new Set<string>();
  const labels = draft.steps.map((s) => s.label).filter((l) => l.trim());
  draft.steps.forEach((step, i) => {
    const where = { step_label: step.label, ...(step.step_id !== undefined ? { step_id: step.step_id } : {}) };
    if (!step.label.trim()) report.errors.push({ ...where, field: `steps.${i}.label`, message: "a step needs a label" });
    else if (seen.has(step.label.toLowerCase())) report.errors.push({ ...where, field: `steps.${i}.label`, message: `two steps are labelled '${step.label}'` });
    seen.add(step.label.toLowerCase());
    checkStep(step, where, roots, labels, settings, report);
  });
  draft.contexts.forEach((c, i) => {
    const spec = filterSpecByType(c.context_type);
    if (!spec) return void report.errors.push({ field: `contexts.${i}.context_type`, message: `unknown context type '${c.context_type}'` });
    const m = migrated(spec, c.config, c.schema_version);
    if ("error" in m) return void report.errors.push({ field: `contexts.${i}.config`, message: m.error });
    const check = checkConfig(spec, m.config);
    if (!check.ok) for (const p of check.problems) report.errors.push({ field: `contexts.${i}.config.${p.field}`, message: p.message });
    else
      for (const f of spec.requiredToRun ?? [])
        if (isEmpty(check.config[f])) report.errors.push({ field: `contexts.${i}.config.${f}`, message: `${f}: required` });
  });
  checkGraph(draft, report);
  report.valid = report.errors.length === 0;
  return report;
}
