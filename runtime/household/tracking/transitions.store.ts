/** Room transitions: a person's movement between rooms, read from camera motion and its movement map. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";
import type { RoomTransition } from "../../../vocabulary/tracking";
import type { WriteBatch } from "../../platform/db/write-batch";

/** Declared once, by the care-services seam the node handlers see. */
export type { RoomTransition };

interface TransitionRow extends Omit<RoomTransition, "confidence"> {
  confidence: number | string;
}

/** The person's transitions with `since <= timestamp <= until`, newest first. */
export async function listTransitions(db: Knex, q: { person_id: string; since: string; until: string }): Promise<RoomTransition[]> {
  const rows: TransitionRow[] = await db<TransitionRow>("room_transitions")
    .where({ person_id: q.person_id })
    .whereBetween("timestamp", [q.since, q.until])
    .orderBy("timestamp", "desc")
    .orderBy("id", "desc");
  return rows.map((r) => ({ ...r, id: Number(r.id), confidence: Number(r.confidence) }));
}

/** Records a transition; returns it with its id. */
export async function recordTransition(db: Knex, t: Omit<RoomTransition, "id">): Promise<RoomTransition> {
  const [row] = await db("room_transitions").insert(t).returning("id");
  return { ...t, id: Number(typeof row === "object" ? (row as { id: number }).id : row) };
}

/** Queues transitions on the batch, in order. */
export function queueTransitions(batch: WriteBatch, ts: readonly Omit<RoomTransition, "id">[]): void {
  batch.insert("room_transitions", ts);
}

/** Retention (docs/retention.md, with the location history): deletes at most `limit` transitions before the cutoff. */
export function pruneTransitionsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "room_transitions", `"timestamp" < ?`, [cutoffIso], limit);
}
