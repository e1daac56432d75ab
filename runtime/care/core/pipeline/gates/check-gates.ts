/**
 * All gates in the spec's order: context filters, dependencies, cool-off, daily limit.
 * The first hold wins and its reason is the answer; a hold is logged at debug level only,
 * since holding is the rules engine working as intended.
 */
import type { TriggerContext } from "../../../../../nodes/_kit/handler-types";
import type { CareContext } from "../../context";
import { getRuleDetail, listDependencies } from "../../rules/rule-read";
import { contextViews, ruleView, type RuleNodes } from "../../rules/rule-model";
import type { FireRequest, GateResult } from "../engine/types";
import { coolOffGate } from "./cool-off.gate";
import { dailyLimitGate } from "./daily-limit.gate";
import { dependenciesGate } from "./dependencies.gate";
import { filtersGate, type FilterSetup } from "./filters.gate";
import type { GateRule } from "./gate-rule";

export type { GateRule } from "./gate-rule";

/** What the filters gate runs filter handlers with. */
export type GateOptions = FilterSetup;

export const GATE_ORDER = ["filters", "dependencies", "cool_off", "daily_limit"] as const;
export type GateName = (typeof GATE_ORDER)[number];

export async function checkGates(ctx: CareContext, rule: GateRule, trigger: TriggerContext, opts: GateOptions): Promise<GateResult> {
  const gates: Record<GateName, () => Promise<GateResult>> = {
    filters: () => filtersGate(ctx, rule, trigger, opts),
    dependencies: () => dependenciesGate(ctx, rule),
    cool_off: () => coolOffGate(ctx, rule),
    daily_limit: () => dailyLimitGate(ctx, rule),
  };
  for (const gate of GATE_ORDER) {
    const result = await gates[gate]();
    if (!result.pass) {
      ctx.log.debug({ rule_id: rule.id, gate, reason: result.reason, trigger_type: trigger.trigger_type }, "rule held");
      return result;
    }
  }
  return { pass: true };
}

/** Reads the rule (contexts and dependencies included) and checks its gates. */
export async function checkGatesById(ctx: CareContext, ruleId: number, trigger: TriggerContext, opts: GateOptions): Promise<GateResult> {
  return checkGates(ctx, await getRuleDetail(ctx, ruleId, false), trigger, opts);
}

/** The gate view of a rule located in a flow snapshot (dependencies come from their table). */
export async function gateRuleOf(ctx: CareContext, rule: RuleNodes): Promise<GateRule> {
  const view = ruleView(rule, false);
  return {
    id: view.id,
    cool_off_minutes: view.cool_off_minutes,
    max_daily_triggers: view.max_daily_triggers,
    contexts: contextViews(rule),
    dependencies: await listDependencies(ctx, view.id),
  };
}

/** The engine's gate check: `engine.setGates(ruleGates(ctx, { services }))`. */
export function ruleGates(ctx: CareContext, opts: GateOptions): (req: FireRequest, rule: RuleNodes) => Promise<GateResult> {
  return async (req, rule) => {
    const gateRule = await gateRuleOf(ctx, rule);
    // Cool-off, the daily limit and dependencies read event logs: runs of these rules still
    // queued for writing (group commit) must be in the store first.
    const reads = [
      ...(gateRule.cool_off_minutes > 0 || gateRule.max_daily_triggers !== null ? [gateRule.id] : []),
      ...gateRule.dependencies.map((d) => d.depends_on_rule_id),
    ];
    if (reads.length) await ctx.engine?.store.whenRulesWritten(reads);
    return checkGates(ctx, gateRule, req.trigger, opts);
  };
}
