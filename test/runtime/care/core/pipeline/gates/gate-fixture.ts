/** The app with a ManualClock for gate tests, runs (and so event logs) on demand and rules by hand. */
import type { Knex } from "knex";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import type { Logger } from "../../../../../../runtime/platform/core/logger";
import type { GateRule } from "../../../../../../runtime/care/core/pipeline/gates/gate-rule";
import { insertRunRows } from "../../../../../support/run-rows";
import { startTestApp, type TestApp } from "../../../../../support/test-app";

export const NOW = "2026-11-22T04:00:00.000Z";

export async function startGateApp(timezone = "UTC", log?: Logger): Promise<{ t: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(Date.parse(NOW));
  const t = await startTestApp({ clock, log, settings: { app: { timezone } } });
  return { t, clock };
}

export async function logRun(db: Knex, rule_id: number, status: string, timestamp: string, rule_name = `rule ${rule_id}`): Promise<void> {
  await insertRunRows(db, [{ timestamp, rule_id, rule_name, status }]);
}

export const gateRule = (partial: Partial<GateRule> = {}): GateRule => ({
  id: 1,
  cool_off_minutes: 0,
  max_daily_triggers: null,
  contexts: [],
  dependencies: [],
  ...partial,
});

export const minutesBefore = (iso: string, minutes: number): string => new Date(Date.parse(iso) - minutes * 60_000).toISOString();
