/**
 * `ingest_batches`, owned here: the camera aggregator's batches. A batch is `open` while it
 * gathers frames, then `flushed` (its rules fired) or `discarded`. Claiming a flush is one
 * conditional update, so two flushers (a timer and a full batch, or a restart) never both win.
 */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";
import { fromJsonText, toJsonText } from "../../platform/db/json-column";

export interface BatchRow {
  id: number;
  sensor_id: string;
  room_name: string | null;
  state: "open" | "flushed" | "discarded";
  opened_at: string;
  due_at: string;
  closed_at: string | null;
  media_ids: number[];
  media_paths: string[];
  close_reason: string | null;
}

interface DbRow extends Omit<BatchRow, "media_ids" | "media_paths"> {
  media_ids_json: string;
  media_paths_json: string;
}

const fromDb = (r: DbRow): BatchRow => ({
  id: Number(r.id),
  sensor_id: r.sensor_id,
  room_name: r.room_name ?? null,
  state: r.state,
  opened_at: r.opened_at,
  due_at: r.due_at,
  closed_at: r.closed_at ?? null,
  media_ids: fromJsonText<number[]>(r.media_ids_json, []),
  media_paths: fromJsonText<string[]>(r.media_paths_json, []),
  close_reason: r.close_reason ?? null,
});

export async function insertBatch(
  db: Knex,
  b: { sensor_id: string; room_name: string | null; opened_at: string; due_at: string; media_ids: number[]; media_paths: string[] },
): Promise<number> {
  const [inserted] = await db("ingest_batches")
    .insert({
      sensor_id: b.sensor_id,
      room_name: b.room_name,
      state: "open",
      opened_at: b.opened_at,
      due_at: b.due_at,
      media_ids_json: toJsonText(b.media_ids),
      media_paths_json: toJsonText(b.media_paths),
    })
    .returning("id");
  return typeof inserted === "object" ? Number((inserted as { id: number }).id) : Number(inserted);
}

export async function updateBatchFrames(db: Knex, id: number, mediaIds: readonly number[], mediaPaths: readonly string[]): Promise<void> {
  await db("ingest_batches")
    .where({ id, state: "open" })
    .update({ media_ids_json: toJsonText([...mediaIds]), media_paths_json: toJsonText([...mediaPaths]) });
}

/** Moves an open batch to its final state; false when it was not open any more (someone else closed it). */
export async function closeBatch(db: Knex, id: number, state: "flushed" | "discarded", closedAt: string, reason: string): Promise<BatchRow | null> {
  return db.transaction(async (trx) => {
    const n = await trx("ingest_batches").where({ id, state: "open" }).update({ state, closed_at: closedAt, close_reason: reason });
    if (n !== 1) return null;
    const row: DbRow | undefined = await trx("ingest_batches").where({ id }).first();
    return row ? fromDb(row) : null;
  });
}

export async function openBatches(db: Knex): Promise<BatchRow[]> {
  const rows: DbRow[] = await db("ingest_batches").where({ state: "open" }).orderBy("id");
  return rows.map(fromDb);
}

/** The newest flushed batch's close time per sensor (cooldowns after a restart). */
export async function lastFlushes(db: Knex, sinceIso: string): Promise<Array<{ sensor_id: string; closed_at: string }>> {
  return db("ingest_batches")
    .where({ state: "flushed" })
    .where("closed_at", ">=", sinceIso)
    .groupBy("sensor_id")
    .select("sensor_id")
    .max({ closed_at: "closed_at" });
}

/** Closed batches older than `beforeIso` are forgotten with the frames they named. */
export async function deleteClosedBefore(db: Knex, beforeIso: string): Promise<number> {
  return db("ingest_batches").whereNot({ state: "open" }).where("closed_at", "<", beforeIso).delete();
}

export async function recentBatches(db: Knex, limit: number): Promise<BatchRow[]> {
  const rows: DbRow[] = await db("ingest_batches").orderBy("id", "desc").limit(limit);
  return rows.map(fromDb);
}

/**
 * Several instances: the rest of the transaction is the only work on this sensor's batches
 * anywhere (a PostgreSQL advisory lock, released at commit), as one process's queue is alone.
 */
export async function lockSensorBatches(trx: Knex.Transaction, sensorId: string): Promise<void> {
  await trx.raw("select pg_advisory_xact_lock(hashtext(?))", [`ingest_batches:${sensorId}`]);
}

/** The sensor's open batch, if any (one at most while the sensor's lock is held). */
export async function openBatchOf(db: Knex, sensorId: string): Promise<BatchRow | null> {
  const row: DbRow | undefined = await db("ingest_batches").where({ sensor_id: sensorId, state: "open" }).orderBy("id").first();
  return row ? fromDb(row) : null;
}

/** When the sensor's last batch was flushed (its cooldown runs from there), or null. */
export async function lastFlushOf(db: Knex, sensorId: string): Promise<string | null> {
  const row = await db("ingest_batches").where({ sensor_id: sensorId, state: "flushed" }).max({ closed_at: "closed_at" }).first();
  return (row?.closed_at as string | null | undefined) ?? null;
}

/** Retention (docs/retention.md): deletes at most `limit` batches closed before the cutoff; an open batch stays. */
export function pruneClosedBatchesBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "ingest_batches", `"state" <> 'open' and closed_at is not null and closed_at < ?`, [cutoffIso], limit);
}
