/** One row per location change of a person, oldest first in time; the current row is in locations.store. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";
import { chunks, ROWS_PER_STATEMENT } from "../../platform/db/chunks";
import type { LocationSource } from "./locations.store";
import type { WriteBatch } from "../../platform/db/write-batch";

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
  /** The stay's quality so far: the mean confidence of the evidence that kept the person there. */
  mean_quality: number | null;
  quality_samples: number;
  /** The continuous-tracking track that placed the person here, when one did. */
  ph_id?: string | null;
  /** On a row a revision wrote: the revision. */
  revision_id?: string | null;
}

interface ChangeRow extends Omit<LocationChange, "confidence" | "mean_quality" | "quality_samples"> {
  confidence: number | string;
  mean_quality?: number | string | null;
  quality_samples?: number | string | null;
}

const toChange = (r: ChangeRow): LocationChange => ({
  id: Number(r.id),
  person_id: r.person_id,
  room_id: r.room_id,
  room_name: r.room_name,
  source: r.source,
  confidence: Number(r.confidence),
  direction_semantic: r.direction_semantic,
  timestamp: r.timestamp,
  mean_quality: r.mean_quality === null || r.mean_quality === undefined ? null : Number(r.mean_quality),
  quality_samples: Number(r.quality_samples ?? 0),
  ph_id: r.ph_id ?? null,
});

/** Rows a revision superseded stay for the record, out of every read. */
const live = (db: Knex) => db<ChangeRow>("person_location_history").whereNull("deleted_at");

/** Appends a change; returns its id. */
export async function appendLocationChange(db: Knex, c: Omit<LocationChange, "id">): Promise<number> {
  const [row] = await db("person_location_history").insert(c).returning("id");
  return Number(typeof row === "object" ? (row as { id: number }).id : row);
}

/** Queues changes on the batch, in order (ids grow with it). */
export function queueLocationChanges(batch: WriteBatch, cs: readonly Omit<LocationChange, "id">[]): void {
  batch.insert("person_location_history", cs);
}

/** The change in force at `at` (the last at or before it) and the next one after it, each or null. */
export async function changesAround(db: Knex, personId: string, at: string): Promise<{ before: LocationChange | null; after: LocationChange | null }> {
  const before = await live(db).where({ person_id: personId }).andWhere("timestamp", "<=", at).orderBy("timestamp", "desc").orderBy("id", "desc").first();
  const after = await live(db).where({ person_id: personId }).andWhere("timestamp", ">", at).orderBy("timestamp", "asc").orderBy("id", "asc").first();
  return { before: before ? toChange(before) : null, after: after ? toChange(after) : null };
}

/** A change found to have happened earlier than its row says (a late fix saw the person there first). */
export async function setChangeTime(db: Knex, id: number, timestamp: string): Promise<void> {
  await db("person_location_history").where({ id }).update({ timestamp });
}

/** The stay's quality, updated as more evidence keeps the person in the room. */
export async function setChangeQuality(db: Knex, id: number, meanQuality: number, samples: number): Promise<void> {
  await db("person_location_history").where({ id }).update({ mean_quality: meanQuality, quality_samples: samples });
}

/** The person's changes with `timestamp >= since`, newest first. */
export async function listLocationChanges(db: Knex, personId: string, since: string): Promise<LocationChange[]> {
  const rows: ChangeRow[] = await live(db).where({ person_id: personId }).andWhere("timestamp", ">=", since).orderBy("timestamp", "desc").orderBy("id", "desc");
  return rows.map(toChange);
}

/** The person's most recent change, i.e. when they entered where they are now. */
export async function latestLocationChange(db: Knex, personId: string): Promise<LocationChange | null> {
  const row = await live(db).where({ person_id: personId }).orderBy("timestamp", "desc").orderBy("id", "desc").first();
  return row ? toChange(row) : null;
}

/**
 * Sets the quality of each person's current stay (their latest change in history, found by the
 * statement itself, so no read is needed first; in a WriteBatch it is the latest before the
 * batch's own rows).
 */
export function queueStayQualities(batch: WriteBatch, qs: readonly { person_id: string; mean_quality: number; quality_samples: number }[]): void {
  for (const part of chunks(qs, ROWS_PER_STATEMENT)) {
    // Cast: PostgreSQL types a `case` of bare parameters as text.
    const byPerson = (column: "mean_quality" | "quality_samples", type: string) =>
      batch.db.raw(
        `case person_id ${part.map(() => `when ? then cast(? as ${type})`).join(" ")} end`,
        part.flatMap((q) => [q.person_id, q[column]]),
      );
    batch.query(
      batch
        .db("person_location_history")
        .whereIn(
          "person_id",
          part.map((q) => q.person_id),
        )
        .whereNull("deleted_at")
        .whereRaw(LATEST_OF_PERSON)
        .update({ mean_quality: byPerson("mean_quality", "real"), quality_samples: byPerson("quality_samples", "integer") }),
    );
  }
}

/** The row is its person's latest live change. */
const LATEST_OF_PERSON =
  "id = (select later.id from person_location_history later where later.person_id = person_location_history.person_id and later.deleted_at is null order by later.timestamp desc, later.id desc limit 1)";

/**
 * The person's changes with `since <= timestamp < until`, oldest first, led by the change in
 * force at `since` (the last one before it), when there is one: where the window began.
 */
export async function listLocationChangesBetween(db: Knex, personId: string, since: string, until: string): Promise<LocationChange[]> {
  const before = await live(db).where({ person_id: personId }).andWhere("timestamp", "<", since).orderBy("timestamp", "desc").orderBy("id", "desc").first();
  const rows: ChangeRow[] = await live(db)
    .where({ person_id: personId })
    .andWhere("timestamp", ">=", since)
    .andWhere("timestamp", "<", until)
    .orderBy("timestamp", "asc")
    .orderBy("id", "asc");
  return (before ? [before, ...rows] : rows).map(toChange);
}

/** A revision superseded these rows: kept for the record, out of every read. */
export async function supersedeChanges(db: Knex, ids: readonly number[], revisionId: string, at: string): Promise<void> {
  if (ids.length)
    await db("person_location_history")
      .whereIn("id", [...ids])
      .update({ deleted_at: at, revision_id: revisionId });
}

/** Live rows a track placed under anyone but `keepPersonId`: what a revision of that track's identity supersedes. */
export async function changesOfTrackNotBy(db: Knex, phId: string, keepPersonId: string | null): Promise<LocationChange[]> {
  const q = live(db).where({ ph_id: phId });
  if (keepPersonId) q.whereNot({ person_id: keepPersonId });
  const rows: ChangeRow[] = await q.orderBy("timestamp", "asc").orderBy("id", "asc");
  return rows.map(toChange);
}

/**
 * Retention (docs/retention.md): deletes at most `limit` changes made before the cutoff, but
 * never a person's latest one: it says since when they are where they are.
 */
export function pruneLocationChangesBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  const newer = `exists (select 1 from person_location_history later where later.person_id = person_location_history.person_id and later.id > person_location_history.id)`;
  return deleteSomeWhere(db, "person_location_history", `"timestamp" < ? and ${newer}`, [cutoffIso], limit);
}
