/**
 * Steps of a rule: nodes of its tab. Adding appends (and continues the chain from the
 * last step's free `main` port), deleting renumbers, reorder and positions persist.
 */
import { z } from "zod";
import { nodeRedType, type StepSpec } from "../../../../nodes/_kit/types";
import type { CareContext } from "../context";
import { ValidationError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { suggest, didYouMean } from "../language/suggest";
import { stepSpecByType, stepSpecs } from "./care-types";
import { newNodeId, type FlowDraft } from "./flow-draft";
import { stepNode, stepSlot } from "./node-builders";
import { findRule, getRuleDetail } from "./rule-read";
import { edgesOf, nodeWires, stepViews, type RuleIndex, type RuleNodes, type StepView } from "./rule-model";
import { validatedConfig } from "./step-checks";
import { bumpRulesVersion } from "./rules-version";
import { NotFoundError } from "../../../platform/core/errors";
import { storeId } from "../../../../nodes/_kit/store-id";

const position = z.number().finite().min(-100000).max(100000);
const stepFields = {
  step_type: z.string().min(1),
  label: z.string().trim().min(1, "must not be empty").max(100),
  config_json: z.unknown(),
  enabled: z.boolean(),
  position_x: position,
  position_y: position,
};
export const stepCreateSchema = z.object(stepFields).partial().required({ step_type: true }).strict();
export const stepUpdateSchema = z
  .object({ ...stepFields, next_step_on_true: z.number().int().positive().nullable(), next_step_on_false: z.number().int().positive().nullable() })
  .partial()
  .strict();

export function specForType(type: string, field = "step_type"): StepSpec {
  const spec = stepSpecByType(type);
  if (spec) return spec;
  const hint = suggest(
    type,
    stepSpecs().map((s) => s.type),
  );
  throw new ValidationError(`${field}: unknown step type '${type}'${didYouMean(hint)}`);
}

/** A step as a refusal names it: `rule 'Morning medication', step 'remind'`. */
const stepPlace = (r: RuleNodes, label: string): string => `rule '${String(r.tab.label ?? r.row.id)}', step '${label || "(no label)"}'`;

function assertLabelFree(r: RuleNodes, label: string, exceptNode?: string): void {
  const clash = r.steps.find((s) => s.node.id !== exceptNode && String(s.node.name ?? "").toLowerCase() === label.toLowerCase());
  if (clash) throw new ValidationError(`label: step ${clash.row.id} of this rule is already labelled '${label}'`);
}

function freeLabel(r: RuleNodes, base: string): string {
  const taken = new Set(r.steps.map((s) => String(s.node.name ?? "").toLowerCase()));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

export function findStep(r: RuleNodes, stepId: number): { row: RuleNodes["steps"][number]["row"]; node: FlowNode } {
  const s = r.steps.find((x) => x.row.id === stepId);
  if (!s) throw new NotFoundError(`Step ${stepId} not found in rule ${r.row.id}`);
  return s;
}

export async function listSteps(ctx: CareContext, ruleId: number): Promise<StepView[]> {
  return (await getRuleDetail(ctx, ruleId, false)).steps;
}

async function stepById(ctx: CareContext, ruleId: number, nodeId: string): Promise<StepView> {
  const row = await ctx.db("rule_steps").where({ node_id: nodeId }).first();
  const step = (await listSteps(ctx, ruleId)).find((s) => s.id === row?.id);
  if (!step) throw new NotFoundError(`Step not found in rule ${ruleId}`);
  return step;
}

export async function addStep(ctx: CareContext, ruleId: number, input: unknown): Promise<StepView> {
  const body = parseInput(stepCreateSchema, input);
  const spec = specForType(body.step_type);
  const nodeId = newNodeId();
  await ctx.flows.change((draft, index) => {
    const r = findRule(draft.nodes, index, ruleId);
    const label = body.label ?? freeLabel(r, spec.type);
    const config = validatedConfig(spec, body.config_json, "config_json", stepPlace(r, label));
    assertLabelFree(r, label);
    const last = r.steps[r.steps.length - 1];
    const slot = stepSlot(r.steps.length);
    draft.add(stepNode(spec, r.tab.id, { label, config, enabled: body.enabled, x: body.position_x ?? slot.x, y: body.position_y ?? slot.y }, nodeId));
    if (last) continueChain(draft, last.node, nodeId, r);
    draft.rewireEntries(r.tab.id);
  });
  return stepById(ctx, ruleId, nodeId);
}

/** Appending continues a linear rule: the last step's `main` port, when free, feeds the new step. */
function continueChain(draft: FlowDraft, lastNode: FlowNode, newId: string, r: RuleNodes): void {
  const node = draft.get(lastNode.id)!;
  const ports = specForType(String(node.type).replace(/^care-/, "")).outputPorts;
  const main = ports.indexOf("main");
  if (main < 0) return;
  const stepIds = new Set(r.steps.map((s) => s.node.id));
  const wires = nodeWires(node);
  if ((wires[main] ?? []).some((t) => stepIds.has(t))) return;
  wires[main] = [...(wires[main] ?? []), newId];
  node.wires = wires;
}

export async function updateStep(ctx: CareContext, ruleId: number, stepId: number, input: unknown): Promise<StepView> {
  const body = parseInput(stepUpdateSchema, input);
  let nodeId = "";
  await ctx.flows.change((draft, index) => {
    const r = findRule(draft.nodes, index, ruleId);
    const { node: found } = findStep(r, stepId);
    const node = draft.get(found.id)!;
    nodeId = node.id;
    const currentType = String(node.type).replace(/^care-/, "");
    const spec = specForType(body.step_type ?? currentType);
    if (body.label !== undefined) {
      assertLabelFree(r, body.label, node.id);
      node.name = body.label;
    }
    if (body.step_type !== undefined || body.config_json !== undefined) {
      const base = body.config_json ?? (body.step_type && body.step_type !== currentType ? {} : node.config);
      node.config = validatedConfig(spec, base, "config_json", stepPlace(r, String(node.name ?? "")));
      node.config_version = spec.version;
      node.type = nodeRedType(spec);
      node.wires = spec.outputPorts.map((_, i) => nodeWires(node)[i] ?? []);
    }
    if (body.enabled !== undefined) {
      if (body.enabled) delete node.d;
      else node.d = true;
    }
    if (body.position_x !== undefined) node.x = body.position_x;
    if (body.position_y !== undefined) node.y = body.position_y;
    setBranch(r, node, spec, "true", body.next_step_on_true);
    setBranch(r, node, spec, "false", body.next_step_on_false);
    draft.rewireEntries(r.tab.id);
  });
  return stepById(ctx, ruleId, nodeId);
}

/** `next_step_on_true/false` are the edges of a condition's true/false ports. */
function setBranch(r: RuleNodes, node: FlowNode, spec: StepSpec, port: "true" | "false", target: number | null | undefined): void {
  if (target === undefined) return;
  const field = `next_step_on_${port}`;
  const i = spec.outputPorts.indexOf(port);
  if (i < 0) throw new ValidationError(`${field}: a ${spec.type} step has no '${port}' port`);
  const stepNodes = new Set(r.steps.map((s) => s.node.id));
  const wires = nodeWires(node);
  const kept = (wires[i] ?? []).filter((t) => !stepNodes.has(t));
  if (target === null) wires[i] = kept;
  else {
    const t = r.steps.find((s) => s.row.id === target);
    if (!t) throw new ValidationError(`${field}: step ${target} is not a step of rule ${r.row.id}`);
    if (t.node.id === node.id) throw new ValidationError(`${field}: a step cannot feed itself`);
    wires[i] = [t.node.id, ...kept];
  }
  node.wires = wires;
}

export async function deleteStep(ctx: CareContext, ruleId: number, stepId: number): Promise<void> {
  await ctx.flows.change((draft, index) => {
    const r = findRule(draft.nodes, index, ruleId);
    draft.remove(new Set([findStep(r, stepId).node.id]));
    draft.rewireEntries(r.tab.id);
  });
}

const reorderSchema = z.array(z.object({ id: storeId(), order: z.number().int().min(1) }).strict()).min(1, "list at least one step");

/** Order is the list order of a rule's steps; it lives in the id index, not in the flow. */
export async function reorderSteps(ctx: CareContext, ruleId: number, input: unknown): Promise<StepView[]> {
  const items = parseInput(reorderSchema, input);
  const { flows, index } = await ctx.flows.snapshot();
  const r = findRule(flows, index, ruleId);
  items.forEach((item, i) => {
    if (!r.steps.some((s) => s.row.id === item.id)) throw new ValidationError(`${i}.id: step ${item.id} is not a step of rule ${ruleId}`);
  });
  const wanted = new Map(items.map((it) => [it.id, it.order]));
  const ranked = r.steps
    .map((s, i) => ({ id: s.row.id, key: wanted.get(s.row.id) ?? i + 1, tie: wanted.has(s.row.id) ? 0 : 1, was: i }))
    .sort((a, b) => a.key - b.key || a.tie - b.tie || a.was - b.was);
  await ctx.db.transaction(async (trx) => {
    for (const [i, s] of ranked.entries())
      await trx("rule_steps")
        .where({ id: s.id })
        .update({ order: i + 1 });
  });
  // Whoever keeps the index (rule reads, triggers) reads it again.
  bumpRulesVersion(ctx.db);
  return listSteps(ctx, ruleId);
}

// `{"positions": [...]}`, or the bare list.
const positionsSchema = z.preprocess(
  (v) => (Array.isArray(v) ? { positions: v } : v),
  z.object({ positions: z.array(z.object({ step_id: storeId(), position_x: position, position_y: position }).strict()) }).strict(),
);

export async function setPositions(ctx: CareContext, ruleId: number, input: unknown): Promise<StepView[]> {
  const { positions } = parseInput(positionsSchema, input);
  await ctx.flows.change((draft, index: RuleIndex) => {
    const r = findRule(draft.nodes, index, ruleId);
    positions.forEach((p, i) => {
      const s = r.steps.find((x) => x.row.id === p.step_id);
      if (!s) throw new ValidationError(`positions.${i}.step_id: step ${p.step_id} is not a step of rule ${ruleId}`);
      const node = draft.get(s.node.id)!;
      node.x = p.position_x;
      node.y = p.position_y;
    });
  });
  return listSteps(ctx, ruleId);
}

export { edgesOf, stepViews };
