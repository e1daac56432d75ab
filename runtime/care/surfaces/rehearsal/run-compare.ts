/**
 * Rehearsed runs beside recorded ones: each run as its timeline (steps with their times and
 * ports), whether it alerted (a notification step that ran), and the difference between the
 * two sets in the words a caregiver uses ("2 fewer alerts, one new at 03:12").
 */
import type { ExecutionRow } from "../../core/pipeline/engine/execution-rows";
import { localParts } from "../../../household/tracking/local-time";
import type { EffectLog, WouldSend } from "./would-send";
import { runWarnings } from "../../core/pipeline/runs/runs.service";

export interface RunStepSummary {
  step_id: number;
  label: string;
  step_type: string;
  started_at: string;
  status: string;
  output_ports: string[];
  error?: string;
}

export interface RunSummary {
  /** The recorded run's id; for a rehearsed run, its id in the rehearsal (not a run of the store). */
  execution_id: number;
  started_at: string;
  status: string;
  trigger_type: string;
  error: string | null;
  /** A notification step ran and had a channel to try: the family was (or would have been) alerted. */
  alerted: boolean;
  /** What makes the run "needs a look" (a notification that reached no channel, ...), as REST lists a run's `warnings`. */
  warnings: string[];
  steps: RunStepSummary[];
  /** Rehearsed runs only: what it would have sent, with the rendered text. */
  would_send?: WouldSend[];
}

export interface RehearsalComparison {
  difference: {
    rehearsed_runs: number;
    actual_runs: number;
    rehearsed_alerts: number;
    actual_alerts: number;
    /** Alerts of the rehearsal at times the deployed rule did not alert (ISO). */
    new_alerts: string[];
    /** Alerts of the deployed rule the rehearsal would not have sent (ISO). */
    missing_alerts: string[];
    summary: string;
  };
}

/** Recorded and rehearsed runs of the same input start within this of each other. */
const SAME_INPUT_MS = 5_000;

// A send with no channel at all (no receipt) alerted nobody, rehearsed or not.
const alertedBy = (r: ExecutionRow): boolean =>
  r.step_records.some((s) => s.step_type === "notification" && s.status === "success" && !(s.receipts && s.receipts.length === 0));

export function summarizeRun(r: ExecutionRow, effects: EffectLog | null): RunSummary {
  return {
    execution_id: r.id,
    started_at: r.started_at,
    status: r.status,
    trigger_type: r.trigger_type,
    error: r.error,
    alerted: alertedBy(r),
    warnings: runWarnings(r),
    steps: r.step_records.map((s) => ({
      step_id: s.step_id,
      label: s.label,
      step_type: s.step_type,
      started_at: s.started_at,
      status: s.status,
      output_ports: s.output_ports,
      ...(s.error ? { error: s.error } : {}),
    })),
    ...(effects ? { would_send: effects.sends.filter((w) => w.execution_id === r.id) } : {}),
  };
}

const count = (n: number, one: string, many: string): string => (n === 1 ? `1 ${one}` : `${n} ${many}`);
const words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

function hhmm(iso: string, zone: string): string {
  const p = localParts(Date.parse(iso), zone);
  return `${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
}

/** Alerts of `a` with no alert of `b` starting within SAME_INPUT_MS. */
function unmatched(a: readonly RunSummary[], b: readonly RunSummary[]): string[] {
  const others = b.filter((r) => r.alerted).map((r) => Date.parse(r.started_at));
  return a.filter((r) => r.alerted && !others.some((t) => Math.abs(t - Date.parse(r.started_at)) <= SAME_INPUT_MS)).map((r) => r.started_at);
}

export function compareRuns(rehearsed: readonly RunSummary[], actual: readonly RunSummary[], zone: string): RehearsalComparison {
  const rehearsedAlerts = rehearsed.filter((r) => r.alerted).length;
  const actualAlerts = actual.filter((r) => r.alerted).length;
  const newAlerts = unmatched(rehearsed, actual);
  const missing = unmatched(actual, rehearsed);
  const parts: string[] = [];
  const delta = rehearsedAlerts - actualAlerts;
  if (delta < 0) parts.push(`${count(-delta, "fewer alert", "fewer alerts")}`);
  else if (delta > 0) parts.push(`${count(delta, "more alert", "more alerts")}`);
  else parts.push(rehearsedAlerts === 0 ? "no alerts either way" : `the same number of alerts (${rehearsedAlerts})`);
  const at = (isos: string[]) => isos.map((i) => hhmm(i, zone)).join(", ");
  if (newAlerts.length) parts.push(`${words[newAlerts.length] ?? newAlerts.length} new at ${at(newAlerts)}`);
  if (missing.length) parts.push(`${words[missing.length] ?? missing.length} no longer sent (${at(missing)})`);
  const runDelta = rehearsed.length - actual.length;
  if (runDelta) parts.push(`${count(Math.abs(runDelta), "run", "runs")} ${runDelta > 0 ? "more" : "fewer"}`);
  // The same alerts at the same times and as many runs: said as plainly as a caregiver would.
  const same = delta === 0 && newAlerts.length === 0 && missing.length === 0 && runDelta === 0;
  const runs = count(rehearsed.length, "run", "runs");
  return {
    difference: {
      rehearsed_runs: rehearsed.length,
      actual_runs: actual.length,
      rehearsed_alerts: rehearsedAlerts,
      actual_alerts: actualAlerts,
      new_alerts: newAlerts,
      missing_alerts: missing,
      summary: same ? `no difference (${rehearsedAlerts === 0 ? "no alerts" : count(rehearsedAlerts, "alert", "alerts")}, ${runs})` : parts.join(", "),
    },
  };
}
