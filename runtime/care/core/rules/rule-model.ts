/**
 * The rule as REST sees it, read from the flow rows and the id index. Everything here is
 * derived: names, trigger settings, configs, positions and edges come from the flow; ids
 * and step order from the index.
 */
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { triggerConfigSchema, type TriggerConfig } from "../../../../nodes/triggers/rule/rule.node";
import { filterSpecOfNode, isTriggerNode, stepSpecOfNode } from "./care-types";

export interface RuleRow {
  id: number;
  tab_id: string;
  webhook_secret: string | null;
  webhook_secret_created_at: string | null;
  created_at: string;
  updated_at: string;
}
export interface StepRow {
  id: number;
  rule_id: number;
  node_id: string;
  order: number;
}
export interface ContextRow {
  id: number;
  rule_id: number;
  node_id: string;
}
export interface DependencyView {
  id: number;
  rule_id: number;
  depends_on_rule_id: number;
  lookback_minutes: number;
  require_success: boolean;
}

export interface RuleIndex {
  rules: RuleRow[];
  steps: StepRow[];
  contexts: ContextRow[];
}

export interface StepView {
  id: number;
  rule_id: number;
  step_type: string;
  label: string;
  config_json: Record<string, unknown>;
  enabled: boolean;
  order: number;
  position_x: number;
  position_y: number;
  next_step_on_true: number | null;
  next_step_on_false: number | null;
}

export interface EdgeView {
  source_step_id: number;
  source_port: string;
  target_step_id: number;
  target_port: string;
}

export interface ContextView {
  id: number;
  rule_id: number;
  context_type: string;
  config: Record<string, unknown>;
  negate: boolean;
}

export interface RuleView extends TriggerConfig {
  id: number;
  name: string;
  description: string;
  enabled: boolean;
  webhook_config: { secret: string | null; created_at: string } | null;
  created_at: string;
  updated_at: string;
}

export interface RuleDetail extends RuleView {
  steps: StepView[];
  edges: EdgeView[];
  contexts: ContextView[];
  dependencies: DependencyView[];
}

/** One rule's nodes, located in a flow snapshot. */
export interface RuleNodes {
  row: RuleRow;
  tab: FlowNode;
  trigger: FlowNode | undefined;
  steps: Array<{ row: StepRow; node: FlowNode }>;
  contexts: Array<{ row: ContextRow; node: FlowNode }>;
}

export function locateRule(flows: readonly FlowNode[], index: RuleIndex, row: RuleRow): RuleNodes | undefined {
  const tab = flows.find((n) => n.id === row.tab_id && n.type === "tab");
  if (!tab) return undefined;
  const byId = new Map(flows.map((n) => [n.id, n]));
  const steps = index.steps
    .filter((s) => s.rule_id === row.id)
    .sort((a, b) => a.order - b.order || a.id - b.id)
    .flatMap((s) => {
      const node = byId.get(s.node_id);
      return node && node.z === tab.id ? [{ row: s, node }] : [];
    });
  const contexts = index.contexts
    .filter((c) => c.rule_id === row.id)
    .sort((a, b) => a.id - b.id)
    .flatMap((c) => {
      const node = byId.get(c.node_id);
      return node && node.z === tab.id ? [{ row: c, node }] : [];
    });
  const trigger = flows.find((n) => n.z === tab.id && isTriggerNode(n.type));
  return { row, tab, trigger, steps, contexts };
}

export const nodeConfig = (node: FlowNode): Record<string, unknown> =>
  node.config && typeof node.config === "object" ? (node.config as Record<string, unknown>) : {};

export const nodeWires = (node: FlowNode): string[][] => (Array.isArray(node.wires) ? (node.wires as string[][]) : []);

export function edgesOf(r: RuleNodes): EdgeView[] {
  const idOfNode = new Map(r.steps.map((s) => [s.node.id, s.row.id]));
  const edges: EdgeView[] = [];
  for (const { row, node } of r.steps) {
    const ports = stepSpecOfNode(node.type)?.outputPorts ?? ["main"];
    nodeWires(node).forEach((targets, i) => {
      for (const t of targets) {
        const target = idOfNode.get(t);
        if (target !== undefined && ports[i] !== undefined) {
          edges.push({ source_step_id: row.id, source_port: ports[i], target_step_id: target, target_port: "main" });
        }
      }
    });
  }
  return edges;
}

export function stepViews(r: RuleNodes): StepView[] {
  const edges = edgesOf(r);
  const next = (id: number, port: string) => edges.find((e) => e.source_step_id === id && e.source_port === port)?.target_step_id ?? null;
  return r.steps.map(({ row, node }, i) => ({
    id: row.id,
    rule_id: row.rule_id,
    step_type: stepSpecOfNode(node.type)?.type ?? node.type.replace(/^care-/, ""),
    label: typeof node.name === "string" ? node.name : "",
    config_json: nodeConfig(node),
    enabled: node.d !== true,
    order: i + 1,
    position_x: Number(node.x ?? 0),
    position_y: Number(node.y ?? 0),
    next_step_on_true: next(row.id, "true"),
    next_step_on_false: next(row.id, "false"),
  }));
}

export const contextViews = (r: RuleNodes): ContextView[] =>
  r.contexts.map(({ row, node }) => ({
    id: row.id,
    rule_id: row.rule_id,
    context_type: filterSpecOfNode(node.type)?.type ?? node.type.replace(/^care-filter-/, ""),
    config: nodeConfig(node),
    negate: node.negate === true,
  }));

export function ruleView(r: RuleNodes, revealSecret: boolean): RuleView {
  const parsed = triggerConfigSchema.safeParse(r.trigger ? nodeConfig(r.trigger) : {});
  const trigger = parsed.success ? parsed.data : triggerConfigSchema.parse({});
  return {
    id: r.row.id,
    name: String(r.tab.label ?? ""),
    description: typeof r.tab.info === "string" ? r.tab.info : "",
    enabled: r.tab.disabled !== true,
    ...trigger,
    webhook_config: r.row.webhook_secret
      ? { secret: revealSecret ? r.row.webhook_secret : "***", created_at: r.row.webhook_secret_created_at ?? r.row.created_at }
      : null,
    created_at: r.row.created_at,
    updated_at: r.row.updated_at,
  };
}
