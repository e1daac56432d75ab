/**
 * The daily-limit gate: at most `max_daily_triggers` runs of the rule per local day in
 * `app.timezone`, the count resetting at local midnight. A run is an `event_logs` row of
 * the rule with any status (processing, completed, ignored, failed): the engine writes
 * one per execution it starts, and none for a firing the gates hold.
 */
import type { CareContext } from "../../context";
import { countLogsSince } from "../../events/event-logs.service";
import type { GateResult } from "../engine/types";
import { startOfLocalDay } from "../../../../platform/core/zoned-time";
import { isoAt, type GateRule } from "./gate-rule";

export async function runsToday(ctx: CareContext, ruleId: number): Promise<number> {
  const since = startOfLocalDay(ctx.clock.now(), ctx.settings.app.timezone);
  return countLogsSince(ctx, ruleId, isoAt(since));
}

export async function dailyLimitGate(ctx: CareContext, rule: Pick<GateRule, "id" | "max_daily_triggers">): Promise<GateResult> {
  if (rule.max_daily_triggers === null || rule.max_daily_triggers === undefined) return { pass: true };
  const n = await runsToday(ctx, rule.id);
  if (n < rule.max_daily_triggers) return { pass: true };
  return { pass: false, reason: `daily limit: ${n} of ${rule.max_daily_triggers} runs today (${ctx.settings.app.timezone}); resets at local midnight` };
}
