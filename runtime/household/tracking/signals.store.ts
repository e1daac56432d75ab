/** Dementia signals from continuous tracking, with their acknowledgment. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";
import { copyRows } from "../../platform/db/table-copy";
import { fromJsonText } from "../../platform/db/json-column";
import type { DementiaSignal, SignalQuery } from "../../../vocabulary/tracking";

/** Declared once, by the care-services seam the node handlers see. */
export type { DementiaSignal, SignalQuery };

/** Lowest first. */
export const SIGNAL_SEVERITY_SCALE = ["info", "warning", "emergency"] as const;

interface SignalRow extends Omit<DementiaSignal, "details"> {
  details_json: string;
  alert_state?: string;
  updated_at?: string | null;
  value?: number | string | null;
}

export async function findSignals(db: Knex, q: SignalQuery): Promise<DementiaSignal[]> {
  const query = db<SignalRow>("dementia_signals").select("*").orderBy("created_at", "desc").orderBy("id", "desc");
  if (q.signal_id !== undefined) query.where("signal_id", q.signal_id);
  if (q.id !== undefined) query.where("id", q.id);
  if (q.limit !== undefined) query.limit(q.limit);
  if (q.kinds && q.kinds.length > 0) query.whereIn("kind", [...q.kinds]);
  if (q.person_ids && q.person_ids.length > 0) query.whereIn("person_id", [...q.person_ids]);
  if (q.unacknowledged) query.whereNull("acknowledged_at");
  if (q.acknowledged_between) query.whereBetween("acknowledged_at", [q.acknowledged_between[0], q.acknowledged_between[1]]);
  if (q.created_between) query.whereBetween("created_at", [q.created_between[0], q.created_between[1]]);
  const rows: SignalRow[] = await query;
  return rows.map(({ details_json, alert_state: _a, updated_at: _u, value: _v, ...r }) => ({
    ...r,
    id: Number(r.id),
    acknowledged_by: r.acknowledged_by ?? null,
    feedback: r.feedback ?? null,
    details: fromJsonText<Record<string, unknown>>(details_json, {}),
  }));
}

export interface IncomingSignal {
  signal_id: string;
  person_id: string;
  kind: string;
  severity: string;
  value: number | null;
  details: Record<string, unknown>;
  started_at: string | null;
}

export type SignalUpsert = "new" | "raised" | "repeat";

const rank = (severity: string) => SIGNAL_SEVERITY_SCALE.indexOf(severity as (typeof SIGNAL_SEVERITY_SCALE)[number]);

/**
 * Stores a signal (always), keyed by the tracking service's `signal_id`. A re-sent signal at a
 * higher severity raises the stored one and may alert again; at equal or lower severity it is
 * a repeat and changes nothing that alerts. `alertPending` marks a stored signal whose rules
 * must still fire: set in the same transaction, cleared once they were fired, so a crash in
 * between fires them at the next start instead of never.
 */
export async function upsertSignal(trx: Knex, s: IncomingSignal, at: string, alertPending: boolean): Promise<SignalUpsert> {
  const existing = await trx("dementia_signals").where({ signal_id: s.signal_id }).first("id", "severity");
  const row = {
    person_id: s.person_id,
    kind: s.kind,
    severity: s.severity,
    value: s.value,
    details_json: JSON.stringify(s.details),
    started_at: s.started_at,
    updated_at: at,
  };
  if (!existing) {
    await trx("dementia_signals").insert({ ...row, signal_id: s.signal_id, created_at: at, alert_state: alertPending ? "pending" : "none" });
    return "new";
  }
  if (rank(s.severity) <= rank(String(existing.severity))) return "repeat";
  // A raised signal is open again: whoever acknowledged the milder one has not seen this.
  await trx("dementia_signals")
    .where({ id: existing.id })
    .update({ ...row, acknowledged_at: null, acknowledged_by: null, feedback: null, ...(alertPending ? { alert_state: "pending" } : {}) });
  return "raised";
}

/** Signals whose rules must still fire (committed, not yet fired), oldest first. */
export async function pendingAlertSignals(db: Knex): Promise<DementiaSignal[]> {
  const ids: Array<{ signal_id: string }> = await db("dementia_signals").where({ alert_state: "pending" }).orderBy("id", "asc").select("signal_id");
  const out: DementiaSignal[] = [];
  for (const { signal_id } of ids) out.push(...(await findSignals(db, { signal_id })));
  return out;
}

export async function markSignalFired(db: Knex, signalId: string): Promise<void> {
  await db("dementia_signals").where({ signal_id: signalId, alert_state: "pending" }).update({ alert_state: "fired" });
}

export interface SignalAck {
  acknowledged_at: string;
  acknowledged_by: string;
  feedback: string | null;
}

/** Acknowledges a signal by its row id; null when there is none. An acknowledged signal keeps its first acknowledgment. */
export async function acknowledgeSignal(db: Knex, id: number, ack: SignalAck): Promise<DementiaSignal | null> {
  const row = await db("dementia_signals").where({ id }).first("signal_id", "acknowledged_at");
  if (!row) return null;
  if (!row.acknowledged_at) await db("dementia_signals").where({ id }).update(ack);
  return (await findSignals(db, { signal_id: String(row.signal_id) }))[0] ?? null;
}

/** An acknowledgment to apply again at its time (a rehearsal's replay). */
export interface TimedSignalAck extends SignalAck {
  signal_id: string;
}

/**
 * The signals created in [fromIso, toIso) into another store (a rehearsal's scratch store),
 * as already fired there: the rehearsal fires each when its `cts.signal` entry is replayed.
 * Each is copied as it stood at `asOfIso`: an acknowledgment made since is left out there
 * and returned, to be applied at its own time (before `toIso`).
 */
export async function copySignalsInto(from: Knex, to: Knex, fromIso: string, toIso: string, asOfIso: string): Promise<TimedSignalAck[]> {
  await copyRows(from, to, "dementia_signals", (q) => q.where("created_at", ">=", fromIso).andWhere("created_at", "<", toIso));
  await to("dementia_signals").where({ alert_state: "pending" }).update({ alert_state: "fired" });
  const later: Array<TimedSignalAck> = await to("dementia_signals")
    .select("signal_id", "acknowledged_at", "acknowledged_by", "feedback")
    .where("acknowledged_at", ">=", asOfIso)
    .orderBy("acknowledged_at");
  await to("dementia_signals").where("acknowledged_at", ">=", asOfIso).update({ acknowledged_at: null, acknowledged_by: null, feedback: null });
  return later.filter((a) => a.acknowledged_at < toIso).map((a) => ({ ...a, feedback: a.feedback ?? null }));
}

/** Applies an acknowledgment returned by `copySignalsInto`, at its time. */
export async function applySignalAck(db: Knex, ack: TimedSignalAck): Promise<void> {
  const { signal_id, ...fields } = ack;
  await db("dementia_signals").where({ signal_id }).whereNull("acknowledged_at").update(fields);
}

/**
 * Retention (docs/retention.md): deletes at most `limit` signals raised before the cutoff that
 * someone acknowledged, or that only informed (an `info` signal asks nobody to act); a
 * warning or an emergency nobody acknowledged stays, however old.
 */
export function pruneSignalsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "dementia_signals", `created_at < ? and (acknowledged_at is not null or severity = 'info')`, [cutoffIso], limit);
}
