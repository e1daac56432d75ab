/** Dementia signals from continuous tracking, with their acknowledgment. */
import type { Knex } from "knex";
import { fromJsonText } from "../../platform/db/json-column";
import type { DementiaSignal, SignalQuery } from "../../../nodes/_kit/care-services";

/** Declared once, by the care-services seam the node handlers see. */
export type { DementiaSignal, SignalQuery };

/** Lowest first. */
export const SIGNAL_SEVERITY_SCALE = ["info", "warning", "emergency"] as const;

interface SignalRow extends Omit<DementiaSignal, "details"> {
  details_json: string;
}

export async function findSignals(db: Knex, q: SignalQuery): Promise<DementiaSignal[]> {
  const query = db<SignalRow>("dementia_signals").select("*").orderBy("created_at", "desc").orderBy("id", "desc");
  if (q.signal_id !== undefined) query.where("signal_id", q.signal_id);
  if (q.kinds && q.kinds.length > 0) query.whereIn("kind", [...q.kinds]);
  if (q.person_ids && q.person_ids.length > 0) query.whereIn("person_id", [...q.person_ids]);
  if (q.unacknowledged) query.whereNull("acknowledged_at");
  if (q.acknowledged_between) query.whereBetween("acknowledged_at", [q.acknowledged_between[0], q.acknowledged_between[1]]);
  if (q.created_between) query.whereBetween("created_at", [q.created_between[0], q.created_between[1]]);
  const rows: SignalRow[] = await query;
  return rows.map(({ details_json, ...r }) => ({ ...r, id: Number(r.id), details: fromJsonText<Record<string, unknown>>(details_json, {}) }));
}
