/** Reading rules from a flow snapshot: list, one rule, or 404. */
import type { CareContext } from "../context";
import { NotFoundError } from "../../../platform/core/errors";
import type { FlowNode } from "../../../platform/nodered/flow-store";
import { toBool } from "../../../platform/db/json-column";
import {
  contextViews,
  edgesOf,
  locateRule,
  ruleView,
  stepViews,
  type DependencyView,
  type RuleDetail,
  type RuleIndex,
  type RuleNodes,
  type RuleView,
} from "./rule-model";

export function findRule(flows: readonly FlowNode[], index: RuleIndex, id: number): RuleNodes {
  const row = index.rules.find((r) => r.id === id);
  const located = row ? locateRule(flows, index, row) : undefined;
  if (!located) throw new NotFoundError(`Rule ${id} not found`);
  return located;
}

export function allRules(flows: readonly FlowNode[], index: RuleIndex): RuleNodes[] {
  return index.rules
    .slice()
    .sort((a, b) => a.id - b.id)
    .flatMap((row) => locateRule(flows, index, row) ?? []);
}

export async function listDependencies(ctx: CareContext, ruleId: number): Promise<DependencyView[]> {
  const rows: Array<DependencyView & { require_success: unknown }> = await ctx.db("rule_dependencies").where({ rule_id: ruleId }).orderBy("id");
  return rows.map((r) => ({
    id: r.id,
    rule_id: r.rule_id,
    depends_on_rule_id: r.depends_on_rule_id,
    lookback_minutes: Number(r.lookback_minutes),
    require_success: toBool(r.require_success),
  }));
}

export async function listRules(ctx: CareContext, revealSecrets: boolean): Promise<RuleView[]> {
  const { flows, index } = await ctx.flows.snapshot();
  return allRules(flows, index).map((r) => ruleView(r, revealSecrets));
}

export async function getRuleDetail(ctx: CareContext, id: number, revealSecrets: boolean): Promise<RuleDetail> {
  const { flows, index } = await ctx.flows.snapshot();
  const r = findRule(flows, index, id);
  return { ...ruleView(r, revealSecrets), steps: stepViews(r), edges: edgesOf(r), contexts: contextViews(r), dependencies: await listDependencies(ctx, id) };
}

/** The rule's webhook secret as stored now (not as a kept index has it): a rotation through any instance counts at once. */
export async function storedWebhookSecret(ctx: CareContext, ruleId: number): Promise<string | null> {
  const row = (await ctx.db("rules").where({ id: ruleId }).first("webhook_secret")) as { webhook_secret: string | null } | undefined;
  return row?.webhook_secret ?? null;
}
