/** Each person's current location (one row per person), as the tracking sources last set it. */
import type { Knex } from "knex";
import { chunks, ROWS_PER_STATEMENT } from "../../platform/db/chunks";
import type { WriteBatch } from "../../platform/db/write-batch";
import { isPostgres } from "../../platform/db/insert-sql";

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

/** The location with its presence segment's quality (the mean confidence of the evidence since the person entered the room). */
export interface StoredLocation extends PersonLocation {
  mean_quality: number | null;
  quality_samples: number;
}

interface LocationRow extends Omit<StoredLocation, "confidence" | "mean_quality" | "quality_samples"> {
  confidence: number | string;
  mean_quality?: number | string | null;
  quality_samples?: number | string | null;
}

const toLocation = (row: LocationRow): StoredLocation => ({
  person_id: row.person_id,
  room_id: row.room_id,
  room_name: row.room_name,
  source: row.source,
  confidence: Number(row.confidence),
  updated_at: row.updated_at,
  mean_quality: row.mean_quality === null || row.mean_quality === undefined ? null : Number(row.mean_quality),
  quality_samples: Number(row.quality_samples ?? 0),
});

/** The location as a handler sees it (without the segment's quality). */
export const plainLocation = ({ mean_quality: _q, quality_samples: _n, ...l }: StoredLocation): PersonLocation => l;

export async function getPersonLocation(db: Knex, personId: string): Promise<StoredLocation | null> {
  const row = await db<LocationRow>("person_locations").where({ person_id: personId }).first();
  return row ? toLocation(row) : null;
}

/** The current locations of these persons (one query), by person_id; absent: placed nowhere. */
export function getPersonLocations(db: Knex, personIds: readonly string[]): Promise<Map<string, StoredLocation>> {
  return readLocations(db, personIds, false);
}

/** `forUpdate` (PostgreSQL): the rows are locked until the transaction ends, in person order. */
async function readLocations(db: Knex, personIds: readonly string[], forUpdate: boolean): Promise<Map<string, StoredLocation>> {
  const found = new Map<string, StoredLocation>();
  for (const ids of chunks(personIds, ROWS_PER_STATEMENT)) {
    const query = db<LocationRow>("person_locations").whereIn("person_id", [...ids]);
    const rows: LocationRow[] = forUpdate ? await query.orderBy("person_id").forUpdate() : await query;
    for (const row of rows) found.set(row.person_id, toLocation(row));
  }
  return found;
}

/**
 * The current locations of these persons, read to be changed in this transaction (`trx`):
 * until it ends, no other transaction changes them. Each writer reads, decides with
 * location-step and writes; two at once (several instances, or the hub's sensors beside the
 * tracking stream) would both start from the same state and the later commit would undo the
 * other's change. On PostgreSQL the rows are locked in person order (two writers never wait on
 * each other in a circle), and a person with no row yet by an advisory lock on their id, then
 * read again. SQLite runs one write transaction at a time.
 */
export async function lockPersonLocations(trx: Knex, personIds: readonly string[]): Promise<Map<string, StoredLocation>> {
  if (!isPostgres(trx)) return getPersonLocations(trx, personIds);
  const ids = [...new Set(personIds)].sort();
  const found = await readLocations(trx, ids, true);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) {
    // One statement; the array's order is the order the locks are taken.
    await trx.raw("select pg_advisory_xact_lock(hashtext(k)) from unnest(?::text[]) as k", [missing.map((id) => `person_locations:${id}`)]);
    for (const [id, l] of await readLocations(trx, missing, true)) found.set(id, l);
  }
  return found;
}

/** Every person's current location, by person_id. */
export async function listPersonLocations(db: Knex): Promise<StoredLocation[]> {
  const rows = await db<LocationRow>("person_locations").select("*").orderBy("person_id");
  return rows.map(toLocation);
}

/** Sets the person's current location (one row per person). */
export async function writePersonLocation(db: Knex, l: StoredLocation): Promise<void> {
  await db("person_locations").insert(l).onConflict("person_id").merge();
}

/** Queues several persons' current locations on the batch, one row each (a person at most once). */
export function queuePersonLocations(batch: WriteBatch, ls: readonly StoredLocation[]): void {
  batch.insert("person_locations", ls, { onConflict: { columns: ["person_id"], action: "merge" } });
}

/** The person is placed nowhere (a revision took away the only fix that placed them). */
export async function deletePersonLocation(db: Knex, personId: string): Promise<void> {
  await db("person_locations").where({ person_id: personId }).delete();
}
