/**
 * "0 lost", counted after the soak from the store (read once the service stopped) and from what
 * the fakes received: every run ended (completed, or failed with a reason: a kill -9 cuts a run
 * short and the restart says so), every alert a probe raised reached the family's chat, every
 * `/status` was answered, every prompt answered, every tracked person where the last event put
 * them.
 */
import Database from "better-sqlite3";
import path from "node:path";
import type { FakeChat } from "../../test/fakes/chat-server";
import type { Fired } from "./feeders";

export interface RunCounts {
  total: number;
  byStatus: Record<string, number>;
  /** Neither completed nor failed/cancelled with a reason. */
  unfinished: number;
  failedWithoutReason: number;
  /** Failed runs' reasons, counted. */
  reasons: Record<string, number>;
}

export interface StoreFacts {
  runs: RunCounts;
  /** Alerts raised by the alert probe's runs: execution id → the n in its text. */
  probeAlerts: Map<number, string>;
  /** The alert probe's runs by execution id: their status. */
  alertRuns: Map<number, string>;
  /** The prompt probe's runs by execution id: status and the answer's channel. */
  promptRuns: Map<number, { status: string; channel: string | null }>;
}

/** Reads the store of a stopped service (SQLite in its data dir). */
export function readStore(dataDir: string, alertRuleId: number, promptRuleId: number): StoreFacts {
  const db = new Database(path.join(dataDir, "careflow.db"), { readonly: true });
  try {
    const rows = db.prepare("select id, rule_id, status, error, pipeline_data from workflow_executions").all() as Array<{
      id: number;
      rule_id: number;
      status: string;
      error: string | null;
      pipeline_data: string;
    }>;
    const byStatus: Record<string, number> = {};
    const reasons: Record<string, number> = {};
    let unfinished = 0;
    let failedWithoutReason = 0;
    const promptRuns = new Map<number, { status: string; channel: string | null }>();
    const alertRuns = new Map<number, string>();
    for (const r of rows) {
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
      if (r.status === "failed" || r.status === "cancelled") {
        if (!r.error?.trim()) failedWithoutReason++;
        else {
          const why = r.error.replace(/\d+/g, "#").slice(0, 80);
          reasons[why] = (reasons[why] ?? 0) + 1;
        }
      } else if (r.status !== "completed") unfinished++;
      if (r.rule_id === alertRuleId) alertRuns.set(r.id, r.status);
      if (r.rule_id === promptRuleId) {
        const data = JSON.parse(r.pipeline_data) as { interactive_response?: { channel?: string } };
        promptRuns.set(r.id, { status: r.status, channel: data.interactive_response?.channel ?? null });
      }
    }
    const probeAlerts = new Map<number, string>();
    for (const a of db.prepare("select execution_id, description from alerts where rule_id = ?").all(alertRuleId) as Array<{
      execution_id: number | null;
      description: string;
    }>)
      if (a.execution_id !== null) probeAlerts.set(a.execution_id, /#(\d+)/.exec(a.description)?.[1] ?? "?");
    return { runs: { total: rows.length, byStatus, unfinished, failedWithoutReason, reasons }, probeAlerts, alertRuns, promptRuns };
  } finally {
    db.close();
  }
}

export interface AlertLoop {
  /** Per fired probe that reached the chat: minutes into the soak, ms from the accepted webhook to the chat. */
  delays: Array<{ at: number; ms: number; n: number }>;
  /** Raised (an alert row) but never in the chat. */
  lost: number[];
  /** Accepted, the run completed, and no alert was raised. */
  notRaised: number[];
  /** Accepted but the run was cut short by a kill before it raised its alert (failed with a reason). */
  cutShort: number;
}

export function alertLoop(fired: readonly Fired[], chat: FakeChat, facts: StoreFacts, soakStart: number): AlertLoop {
  const firstSeen = new Map<string, number>();
  for (const m of chat.messages) {
    const n = /^Soak alert #(\d+)/.exec(m.text ?? "")?.[1];
    if (n && !firstSeen.has(n)) firstSeen.set(n, m.received_at);
  }
  const delays: AlertLoop["delays"] = [];
  const lost: number[] = [];
  const notRaised: number[] = [];
  let cutShort = 0;
  for (const f of fired) {
    const got = firstSeen.get(String(f.n));
    if (got !== undefined) {
      delays.push({ at: (f.at - soakStart) / 60_000, ms: got - f.at, n: f.n });
      continue;
    }
    const raised = f.execution_id !== null && facts.probeAlerts.has(f.execution_id);
    if (raised) lost.push(f.n);
    else if (f.execution_id !== null && facts.alertRuns.get(f.execution_id) === "failed") cutShort++;
    else notRaised.push(f.n);
  }
  return { delays, lost, notRaised, cutShort };
}

/** `/status s<k>` asked and never answered in the chat. */
export function unanswered(asked: ReadonlyArray<{ k: number }>, chat: FakeChat): number[] {
  const answered = new Set<string>();
  for (const m of chat.messages) {
    const k = /^Answer to \/status s(\d+)/.exec(m.text ?? "")?.[1];
    if (k) answered.add(k);
  }
  return asked.filter((a) => !answered.has(String(a.k))).map((a) => a.k);
}
