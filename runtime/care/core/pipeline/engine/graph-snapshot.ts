/** The immutable picture of a rule taken when a run starts: what ran is always readable later. */
import type { TriggerConfig } from "../../../../../nodes/triggers/rule/rule.node";
import { contextViews, edgesOf, ruleView, stepViews, type EdgeView, type RuleNodes } from "../../rules/rule-model";

export interface SnapshotStep {
  id: number;
  node_id: string;
  label: string;
  step_type: string;
  config: Record<string, unknown>;
  enabled: boolean;
  order: number;
}

export interface GraphSnapshot {
  rule_id: number;
  rule_name: string;
  tab_id: string;
  trigger_node_id: string | null;
  trigger: TriggerConfig;
  steps: SnapshotStep[];
  edges: EdgeView[];
  /** `node_id` is absent in snapshots taken before it was recorded. */
  contexts: Array<{ id: number; node_id?: string; context_type: string; config: Record<string, unknown>; negate: boolean }>;
}

/**
 * Snapshots by the rule's tab node. A deploy replaces every node object (flows are cloned or
 * parsed), so a cached snapshot is reused only while the rule's nodes are the very objects it
 * was taken from (and its index ids the same); runs of one rule version share one snapshot.
 */
const cache = new WeakMap<object, { rule: RuleNodes; graph: GraphSnapshot }>();

function sameNodes(a: RuleNodes, b: RuleNodes): boolean {
  if (a === b) return true;
  if (a.row.id !== b.row.id || a.trigger !== b.trigger || a.steps.length !== b.steps.length || a.contexts.length !== b.contexts.length) return false;
  for (let i = 0; i < a.steps.length; i++) if (a.steps[i].node !== b.steps[i].node || a.steps[i].row.id !== b.steps[i].row.id) return false;
  for (let i = 0; i < a.contexts.length; i++) if (a.contexts[i].node !== b.contexts[i].node || a.contexts[i].row.id !== b.contexts[i].row.id) return false;
  return true;
}

export function snapshotRule(r: RuleNodes): GraphSnapshot {
  const hit = cache.get(r.tab);
  if (hit && sameNodes(hit.rule, r)) return hit.graph;
  const graph = takeSnapshot(r);
  cache.set(r.tab, { rule: r, graph });
  return graph;
}

function takeSnapshot(r: RuleNodes): GraphSnapshot {
  const view = ruleView(r, false);
  const { id: _id, name, description: _d, enabled: _e, webhook_config: _w, created_at: _c, updated_at: _u, ...trigger } = view;
  const nodeOf = new Map(r.steps.map((s) => [s.row.id, s.node.id]));
  return {
    rule_id: r.row.id,
    rule_name: name,
    tab_id: r.tab.id,
    trigger_node_id: r.trigger?.id ?? null,
    trigger,
    steps: stepViews(r).map((s) => ({
      id: s.id,
      node_id: nodeOf.get(s.id)!,
      label: s.label,
      step_type: s.step_type,
      config: s.config_json,
      enabled: s.enabled,
      order: s.order,
    })),
    edges: edgesOf(r),
    contexts: contextViews(r).map((c, i) => ({ id: c.id, node_id: r.contexts[i].node.id, context_type: c.context_type, config: c.config, negate: c.negate })),
  };
}

/** The shape of a run's graph as the live feed announces it when the run starts. */
const summaries = new WeakMap<GraphSnapshot, { steps: Array<Pick<SnapshotStep, "id" | "label" | "step_type" | "enabled">>; edges: EdgeView[] }>();

export function graphSummary(graph: GraphSnapshot): { steps: Array<Pick<SnapshotStep, "id" | "label" | "step_type" | "enabled">>; edges: EdgeView[] } {
  let summary = summaries.get(graph);
  if (!summary)
    summaries.set(
      graph,
      (summary = { steps: graph.steps.map((s) => ({ id: s.id, label: s.label, step_type: s.step_type, enabled: s.enabled })), edges: graph.edges }),
    );
  return summary;
}

/** A snapshot's steps by the flow node that runs them and by id, built once per snapshot. */
const indexes = new WeakMap<GraphSnapshot, { byNode: Map<string, SnapshotStep>; byId: Map<number, SnapshotStep> }>();

function indexOf(graph: GraphSnapshot): { byNode: Map<string, SnapshotStep>; byId: Map<number, SnapshotStep> } {
  let index = indexes.get(graph);
  if (!index) {
    const steps = graph.steps ?? [];
    indexes.set(graph, (index = { byNode: new Map(steps.map((s) => [s.node_id, s])), byId: new Map(steps.map((s) => [s.id, s])) }));
  }
  return index;
}

export const stepOfNode = (graph: GraphSnapshot, nodeId: string): SnapshotStep | undefined => indexOf(graph).byNode.get(nodeId);
export const stepById = (graph: GraphSnapshot, id: number): SnapshotStep | undefined => indexOf(graph).byId.get(id);
