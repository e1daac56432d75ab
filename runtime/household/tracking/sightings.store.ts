/** Camera sightings: one row per face a camera placed (a member, or a visitor like `visitor-3`). */
import type { Knex } from "knex";
import type { Retention } from "../../platform/db/retention";
import { fromJsonText, toBool, toJsonText } from "../../platform/db/json-column";
import { deleteBefore } from "../../platform/db/delete-before";

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

/** Deletes the sightings older than the cutoff (ISO-8601 UTC); returns how many. */
export async function deleteSightingsBefore(db: Knex, cutoffIso: string, signal?: AbortSignal): Promise<number> {
  return deleteBefore(db, "sightings", "timestamp", cutoffIso, { signal });
}

/** Kept 90 days: the reports and timelines read a week at most; "seen three times this week" a week. */
export const SIGHTINGS_RETENTION_DAYS = 90;
export const sightingsRetention = (db: Knex): Retention => ({
  what: "sightings",
  days: SIGHTINGS_RETENTION_DAYS,
  deleteBefore: (c, signal) => deleteSightingsBefore(db, c, signal),
});
