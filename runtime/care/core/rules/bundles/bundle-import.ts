/**
 * Importing a RuleBundle. `previewImport` checks everything and writes nothing;
 * `commitImport` writes the rule as one deploy (migrated configs, edges, contexts) and its
 * dependencies, or nothing: a failure after the deploy removes the new rule again.
 */
import { checkConfig } from "../../../../../nodes/_kit/config";
import { triggerConfigSchema } from "../../../../../nodes/triggers/rule/rule.node";
import type { CareContext } from "../../context";
import { isoNow } from "../../../../platform/core/clock";
import { ConflictError, ValidationError } from "../../../../platform/core/errors";
import { sameName } from "../../../../platform/core/name-key";
import { describeIssue, parseInput } from "../../../../platform/core/validation";
import { personIds as allPersonIds } from "../../../../household/persons/persons.service";
import { sensorIds as allSensorIds } from "../../../../household/sensors/sensors.service";
import { packageInfo } from "../../../../platform/config/app-info";
import { suggest, didYouMean } from "../../language/suggest";
import { filterSpecByType, stepSpecByType } from "../care-types";
import { FlowDraft, newNodeId } from "../flow-draft";
import type { FlowNode } from "../../../../platform/nodered/flow-store";
import { filterNode, stepNode, stepSlot, tabNode, triggerNode } from "../node-builders";
import { allRules } from "../rule-read";
import { migrated, validateRuleDraft } from "../rule-validation";
import { BUNDLE_SCHEMA_VERSION, bundleSchema, type ImportReport, type ImportStepReport, type RuleBundle } from "./bundle-schema";

interface Plan {
  bundle: RuleBundle;
  report: ImportReport;
  /** Migrated configs by label, ready to write. */
  configs: Map<string, Record<string, unknown>>;
  contextConfigs: Array<Record<string, unknown>>;
  trigger: Record<string, unknown>;
  edges: RuleBundle["edges"];
  dependencies: Array<{ depends_on_rule_id: number; lookback_minutes: number; require_success: boolean }>;
  nameTaken: boolean;
}

export interface BundleDraftOptions {
  sameRule?: number | null;
  field?: string;
}

const suggestion = (name: string, candidates: Iterable<string>) => didYouMean(suggest(name, candidates));

/** `sameRule`: the rule the bundle is a draft of (a rehearsal's), whose own name it may keep; `field`: what errors name it. */
async function plan(ctx: CareContext, input: unknown, opts: BundleDraftOptions = {}): Promise<Plan> {
  const bundle = parseInput(bundleSchema, input, opts.field ?? "bundle");
  const report: ImportReport = {
    status: "ok",
    rule_name: bundle.rule.name,
    rule_id: null,
    steps: [],
    warnings: [],
    errors: [],
    min_app_version_required: packageInfo().version,
  };
  if (bundle.schema_version > BUNDLE_SCHEMA_VERSION)
    report.errors.push(`bundle schema_version ${bundle.schema_version} is newer than this app reads (${BUNDLE_SCHEMA_VERSION})`);

  const { flows, index } = await ctx.flows.snapshot();
  const rules = allRules(flows, index).map((r) => ({ id: r.row.id, name: String(r.tab.label ?? "") }));
  const nameTaken = rules.some((r) => r.id !== opts.sameRule && sameName(r.name, bundle.rule.name));
  if (nameTaken) report.errors.push(`a rule named '${bundle.rule.name}' already exists`);

  const sensorIds = await allSensorIds(ctx);
  const personIds = await allPersonIds(ctx);
  const { primary_sensor_ref, name: _n, description: _d, enabled: _e, webhook_config: _w, schedule_timezone, ...triggerFields } = bundle.rule;
  const triggerParsed = triggerConfigSchema.safeParse({ ...triggerFields, primary_sensor_id: primary_sensor_ref?.label ?? null });
  if (!triggerParsed.success) for (const i of triggerParsed.error.issues) report.errors.push(`rule.${describeIssue(i)}`);
  if (primary_sensor_ref && !sensorIds.includes(primary_sensor_ref.label)) {
    report.errors.push(`rule.primary_sensor_ref: sensor '${primary_sensor_ref.label}' does not exist here${suggestion(primary_sensor_ref.label, sensorIds)}`);
  }
  if (schedule_timezone && schedule_timezone !== ctx.settings.app.timezone) {
    report.warnings.push(`the schedule was written for ${schedule_timezone}; it runs in this household's ${ctx.settings.app.timezone}`);
  }
  for (const s of bundle.references.sensors)
    if (!sensorIds.includes(s) && s !== primary_sensor_ref?.label) report.warnings.push(`sensor '${s}' is not in this household${suggestion(s, sensorIds)}`);
  for (const p of bundle.references.persons)
    if (!personIds.includes(p)) report.warnings.push(`person '${p}' is not in this household${suggestion(p, personIds)}`);
  for (const m of bundle.references.llm_models) if (!ctx.settings.llm.models.some((x) => x.id === m)) report.warnings.push(`model '${m}' is not in llm.models`);

  const configs = new Map<string, Record<string, unknown>>();
  for (const step of bundle.steps) report.steps.push(stepStatus(step, configs));

  const contextConfigs: Array<Record<string, unknown>> = [];
  bundle.contexts.forEach((c, i) => {
    const spec = filterSpecByType(c.context_type);
    if (!spec) return void report.errors.push(`contexts.${i}.context_type: unknown context type '${c.context_type}'`);
    const m = migrated(spec, c.config, c.schema_version);
    if ("error" in m) return void report.errors.push(`contexts.${i}: ${m.error}`);
    const check = checkConfig(spec, m.config);
    if (!check.ok) check.problems.forEach((p) => report.errors.push(`contexts.${i}.config.${p.message}`));
    else contextConfigs.push(check.config);
  });

  const labels = bundle.steps.map((s) => s.label);
  const edges = bundle.edges.filter((e, i) => {
    const missing = [e.source_label, e.target_label].find((l) => !labels.includes(l));
    if (missing) report.warnings.push(`edges.${i}: no step is labelled '${missing}'${suggestion(missing, labels)}; the edge was skipped`);
    return !missing;
  });
  const check = validateRuleDraft(
    { steps: bundle.steps.map((s) => ({ label: s.label, step_type: s.step_type, config: configs.get(s.label) ?? s.config })), edges, contexts: [] },
    ctx.settings,
  );
  for (const p of check.errors) {
    const step = report.steps.find((s) => s.label === p.step_label);
    if (step && step.status !== "error") Object.assign(step, { status: "error", description: p.message });
    if (!step || !p.field.startsWith("config_json") || step.description === p.message) {
      // A config problem's message already starts with its field ("channels: ..."): named once.
      const short = p.field.replace(/^config_json\./, "");
      const said = p.message.startsWith(`${short}:`) ? `config_json.${p.message}` : `${p.field}: ${p.message}`;
      report.errors.push(`${p.step_label ? `step '${p.step_label}': ` : ""}${said}${didYouMean(p.suggestion)}`);
    }
  }
  for (const w of check.warnings) report.warnings.push(`step '${w.step_label}': ${w.message}${didYouMean(w.suggestion)}`);

  const dependencies = bundle.dependencies.flatMap((d) => {
    const parent = rules.find((r) => sameName(r.name, d.parent_rule_name));
    if (!parent) {
      report.warnings.push(
        `dependency on '${d.parent_rule_name}' was skipped: no such rule here${suggestion(
          d.parent_rule_name,
          rules.map((r) => r.name),
        )}`,
      );
      return [];
    }
    return [{ depends_on_rule_id: parent.id, lookback_minutes: d.lookback_minutes, require_success: d.require_success }];
  });

  // Each step that cannot be imported is named, with why, unless a line above already names it.
  for (const s of report.steps)
    if (s.status === "error" && !report.errors.some((e) => e.startsWith(`step '${s.label}':`))) report.errors.push(`step '${s.label}': ${s.description}`);
  report.status = report.errors.length ? "error" : report.warnings.length || report.steps.some((s) => s.status === "warning") ? "warning" : "ok";
  return { bundle, report, configs, contextConfigs, trigger: triggerParsed.success ? triggerParsed.data : {}, edges, dependencies, nameTaken };
}

function stepStatus(step: RuleBundle["steps"][number], configs: Map<string, Record<string, unknown>>): ImportStepReport {
  const base = { label: step.label, step_type: step.step_type };
  const spec = stepSpecByType(step.step_type);
  if (!spec) return { ...base, status: "error", description: `unknown step type '${step.step_type}'` };
  const m = migrated(spec, step.config, Math.min(step.schema_version, spec.version));
  if ("error" in m) return { ...base, status: "error", description: m.error };
  const check = checkConfig(spec, m.config);
  if (!check.ok) return { ...base, status: "error", description: check.problems.map((p) => p.message).join("; ") };
  configs.set(step.label, check.config);
  if (step.schema_version < spec.version)
    return { ...base, status: "migrated", description: `config migrated from version ${step.schema_version} to ${spec.version}` };
  if (step.schema_version > spec.version)
    return {
      ...base,
      status: "warning",
      description: `written for config version ${step.schema_version}, newer than this app's ${spec.version}; imported as it validates here`,
    };
  return { ...base, status: "ok", description: "valid" };
}

export async function previewImport(ctx: CareContext, input: unknown): Promise<ImportReport> {
  return (await plan(ctx, input)).report;
}

export class ImportRefused extends ValidationError {
  constructor(readonly report: ImportReport) {
    super(`Import of rule '${report.rule_name}' refused: ${report.errors.join("; ")}`);
  }
}

export async function commitImport(ctx: CareContext, input: unknown): Promise<ImportReport> {
  const p = await plan(ctx, input);
  if (p.nameTaken) throw new ConflictError(`A rule named '${p.bundle.rule.name}' already exists`);
  if (p.report.status === "error") throw new ImportRefused(p.report);
  const tabId = newNodeId();
  await ctx.flows.change((draft) => addRuleTab(draft, p, tabId));
  const row = await ctx.db("rules").where({ tab_id: tabId }).first();
  try {
    await ctx.db.transaction(async (trx) => {
      for (const d of p.dependencies) await trx("rule_dependencies").insert({ rule_id: row.id, ...d, created_at: isoNow(ctx.clock) });
    });
  } catch (err) {
    // Keep the all-or-nothing promise: the rule goes again when its metadata cannot be written.
    await ctx.flows.change((draft) => draft.removeTab(tabId));
    throw err;
  }
  return { ...p.report, rule_id: row.id };
}

/** The planned rule as a tab of `draft`: the tab, its trigger, filters and steps, wired. */
function addRuleTab(draft: FlowDraft, p: Plan, tabId: string): void {
  draft.add(tabNode(tabId, p.bundle.rule));
  draft.add(triggerNode(tabId, p.trigger));
  p.contextConfigs.forEach((config, i) =>
    draft.add(filterNode(filterSpecByType(p.bundle.contexts[i].context_type)!, tabId, config, p.bundle.contexts[i].negate, i)),
  );
  const nodeOf = new Map<string, string>();
  p.bundle.steps.forEach((s, i) => {
    const slot = stepSlot(i);
    const node = draft.add(
      stepNode(stepSpecByType(s.step_type)!, tabId, {
        label: s.label,
        config: p.configs.get(s.label)!,
        enabled: s.enabled,
        x: s.position_x ?? slot.x,
        y: s.position_y ?? slot.y,
      }),
    );
    nodeOf.set(s.label, node.id);
  });
  for (const e of p.edges) {
    const source = draft.get(nodeOf.get(e.source_label)!)!;
    const port = stepSpecByType(p.bundle.steps.find((s) => s.label === e.source_label)!.step_type)!.outputPorts.indexOf(e.source_port);
    const wires = source.wires as string[][];
    if (!wires[port].includes(nodeOf.get(e.target_label)!)) wires[port].push(nodeOf.get(e.target_label)!);
  }
  draft.rewireEntries(tabId);
}

/**
 * A bundle as the nodes of a new, undeployed tab (the editor's "Draft from words"), checked
 * by the same plan as an import: the report, and the nodes when it holds no error.
 */
export async function bundleTabNodes(
  ctx: CareContext,
  input: unknown,
  opts: BundleDraftOptions = {},
): Promise<{ report: ImportReport; nodes: FlowNode[] | null }> {
  const p = await plan(ctx, input, opts);
  if (p.report.status === "error") return { report: p.report, nodes: null };
  const draft = new FlowDraft([]);
  addRuleTab(draft, p, newNodeId());
  return { report: p.report, nodes: draft.nodes };
}
