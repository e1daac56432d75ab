/** Room transitions: a person's movement between rooms, read from camera motion and its movement map. */
import type { Knex } from "knex";

export interface RoomTransition {
  id: number;
  person_id: string;
  person_name: string | null;
  sensor_id: string | null;
  /** left-to-right, towards-camera, ... as the camera reported it. */
  direction_raw: string | null;
  /** entering, exiting, approaching_exit, entering_depth or stationary. */
  semantic: string | null;
  from_room_id: string | null;
  from_room_name: string | null;
  to_room_id: string | null;
  to_room_name: string | null;
  confidence: number;
  timestamp: string;
}

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
