/** Each person's current location (one row per person), as the tracking sources last set it. */
import type { Knex } from "knex";

export const LOCATION_SOURCES = ["camera", "hub_sensor", "cts"] as const;
export type LocationSource = (typeof LOCATION_SOURCES)[number];

export interface PersonLocation {
  person_id: string;
  /** Both null: the person was last seen leaving the home. */
  room_id: string | null;
  room_name: string | null;
  source: LocationSource;
  confidence: number;
  /** When a source last confirmed this location. */
  updated_at: string;
}

interface LocationRow extends Omit<PersonLocation, "confidence"> {
  confidence: number | string;
}

export async function getPersonLocation(db: Knex, personId: string): Promise<PersonLocation | null> {
  const row = await db<LocationRow>("person_locations").where({ person_id: personId }).first();
  return row ? { ...row, confidence: Number(row.confidence) } : null;
}

/** Every person's current location, by person_id. */
export async function listPersonLocations(db: Knex): Promise<PersonLocation[]> {
  const rows = await db<LocationRow>("person_locations").select("*").orderBy("person_id");
  return rows.map((row) => ({ ...row, confidence: Number(row.confidence) }));
}
