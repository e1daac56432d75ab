/** The immutable picture of a rule taken when a run starts: what ran is always readable later. */
import type { TriggerConfig } from "../../../nodes/trigger/trigger.spec";
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
  contexts: Array<{ id: number; context_type: string; config: Record<string, unknown>; negate: boolean }>;
}

export function snapshotRule(r: RuleNodes): GraphSnapshot {
  const view = ruleView(r, false);
  const { id: _id, name, description: _d, enabled: _e, webhook_config: _w, created_at: _c, updated_at: _u, ...trigger } = view;
  const nodeOf = new Map(r.steps.map((s) => [s.row.id, s.node.id]));
  return {
    rule_id: r.row.id,
    rule_name: name,
    tab_id: r.tab.id,
    trigger_node_id: r.trigger?.id ?? null,
    trigger,
    steps: stepViews(r).map((s) => ({ id: s.id, node_id: nodeOf.get(s.id)!, label: s.label, step_type: s.step_type, config: s.config_json, enabled: s.enabled, order: s.order })),
    edges: edgesOf(r),
    contexts: contextViews(r).map((c) => ({ id: c.id, context_type: c.context_type, config: c.config, negate: c.negate })),
  };
}
