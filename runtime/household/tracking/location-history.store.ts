/** One row per location change of a person, oldest first in time; the current row is in locations.store. */
import type { Knex } from "knex";
import type { LocationSource } from "./locations.store";

export interface LocationChange {
  id: number;
  person_id: string;
  room_id: string | null;
  room_name: string | null;
  source: LocationSource;
  confidence: number;
  /** entering, exiting, ... when the change came from a room transition. */
  direction_semantic: string | null;
  timestamp: string;
}

interface ChangeRow extends Omit<LocationChange, "confidence"> {
  confidence: number | string;
}

const toChange = (r: ChangeRow): LocationChange => ({ ...r, id: Number(r.id), confidence: Number(r.confidence) });

/** The person's most recent change, i.e. when they entered where they are now. */
export async function latestLocationChange(db: Knex, personId: string): Promise<LocationChange | null> {
  const row = await db<ChangeRow>("person_location_history").where({ person_id: personId }).orderBy("timestamp", "desc").orderBy("id", "desc").first();
  return row ? toChange(row) : null;
}
