/** Camera sightings: one row per face a camera placed (a member, or a visitor like `visitor-3`). */
import type { Knex } from "knex";
import { fromJsonText, toBool, toJsonText } from "../../platform/db/json-column";
import { deleteSomeWhere } from "../../platform/db/delete-before";

export interface Sighting {
  id: number;
  person_id: string;
  person_name: string | null;
  visitor: boolean;
  sensor_id: string;
  room_name: string | null;
  confidence: number;
  bbox: number[];
  media_path: string | null;
  direction_raw: string | null;
  direction_semantic: string | null;
  timestamp: string;
}

interface SightingRow extends Omit<Sighting, "visitor" | "confidence" | "bbox"> {
  visitor: number | boolean;
  confidence: number | string;
  bbox_json: string;
}

const toSighting = ({ bbox_json, ...r }: SightingRow): Sighting => ({
  ...r,
  id: Number(r.id),
  visitor: toBool(r.visitor),
  confidence: Number(r.confidence),
  bbox: fromJsonText<number[]>(bbox_json, []),
});

export async function recordSighting(db: Knex, s: Omit<Sighting, "id">): Promise<void> {
  const { bbox, ...rest } = s;
  await db("sightings").insert({ ...rest, bbox_json: toJsonText(bbox) });
}

/** The person's newest `limit` sightings, newest first. */
export async function listSightings(db: Knex, personId: string, limit: number): Promise<Sighting[]> {
  const rows: SightingRow[] = await db<SightingRow>("sightings").where({ person_id: personId }).orderBy("timestamp", "desc").orderBy("id", "desc").limit(limit);
  return rows.map(toSighting);
}

/** The person's sightings with `since <= timestamp < until`, oldest first. */
export async function listSightingsBetween(db: Knex, personId: string, since: string, until: string): Promise<Sighting[]> {
  const rows: SightingRow[] = await db<SightingRow>("sightings")
    .where({ person_id: personId })
    .andWhere("timestamp", ">=", since)
    .andWhere("timestamp", "<", until)
    .orderBy("timestamp", "asc")
    .orderBy("id", "asc");
  return rows.map(toSighting);
}

/** Retention (`retention.sightings_days`, docs/retention.md): deletes at most `limit` sightings before the cutoff. */
export function pruneSightingsBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "sightings", `"timestamp" < ?`, [cutoffIso], limit);
}
