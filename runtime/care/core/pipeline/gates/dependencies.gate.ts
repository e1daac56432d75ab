/**
 * The dependency gate: with `require_success` the other rule must have a `completed` event
 * log within `lookback_minutes`; without it, it must not (so "only if the morning check did
 * not already alert" is a dependency with require_success false).
 */
import type { CareContext } from "../../context";
import { lastCompletedLog } from "../../events/event-logs.service";
import type { GateResult } from "../engine/types";
import { isoAt, MINUTE_MS, type GateRule } from "./gate-rule";

async function lastCompleted(ctx: CareContext, ruleId: number, sinceMs: number): Promise<{ timestamp: string; rule_name: string | null } | undefined> {
  return lastCompletedLog(ctx, ruleId, isoAt(sinceMs), true);
}

async function ruleName(ctx: CareContext, ruleId: number): Promise<string | null> {
  const { flows, index } = await ctx.flows.snapshot();
  const row = index.rules.find((r) => r.id === ruleId);
  const tab = row && flows.find((n) => n.id === row.tab_id);
  return tab && typeof tab.label === "string" ? tab.label : null;
}

const named = (id: number, name: string | null): string => (name ? `rule ${id} '${name}'` : `rule ${id}`);

export async function dependenciesGate(ctx: CareContext, rule: Pick<GateRule, "dependencies">): Promise<GateResult> {
  const now = ctx.clock.now();
  for (const d of rule.dependencies) {
    const found = await lastCompleted(ctx, d.depends_on_rule_id, now - d.lookback_minutes * MINUTE_MS);
    if (d.require_success && !found) {
      const name = await ruleName(ctx, d.depends_on_rule_id);
      return { pass: false, reason: `dependency: ${named(d.depends_on_rule_id, name)} has not completed in the last ${d.lookback_minutes} minutes` };
    }
    if (!d.require_success && found) {
      return {
        pass: false,
        reason: `dependency: ${named(d.depends_on_rule_id, found.rule_name)} completed at ${found.timestamp}, within the last ${d.lookback_minutes} minutes`,
      };
    }
  }
  return { pass: true };
}
