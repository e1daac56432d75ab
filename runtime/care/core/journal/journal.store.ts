/** The `input_journal` table: the inputs rules saw, in order (care/core/journal). */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../platform/db/json-column";
import { insertRows } from "../../../platform/db/row-insert";
import { deleteBefore } from "../../../platform/db/delete-before";

export interface NewEntry {
  at: string;
  topic: string;
  sensor_id: string | null;
  payload: unknown;
}

export interface JournalEntry extends NewEntry {
  id: number;
}

interface Row {
  id: number;
  at: string;
  topic: string;
  sensor_id: string | null;
  payload: string;
}

const TABLE = "input_journal";

/** An entry as stored: its payload as JSON text. */
export type EncodedEntry = Omit<Row, "id">;

/** The entry as it will be stored; its payload is copied into text now, so later changes to it are not recorded. */
export const encodeEntry = (e: NewEntry): EncodedEntry => ({ at: e.at, topic: e.topic, sensor_id: e.sensor_id, payload: toJsonText(e.payload) });

/** Appends the entries in their order, all or none. */
export async function appendEntries(db: Knex, entries: readonly NewEntry[]): Promise<void> {
  await appendEncoded(db, entries.map(encodeEntry));
}

/** Appends entries already encoded, in their order, all or none. */
export async function appendEncoded(db: Knex, rows: readonly EncodedEntry[]): Promise<void> {
  if (!rows.length) return;
  await db.transaction(async (trx) => {
    await insertRows(trx, TABLE, rows);
  });
}

export interface JournalQuery {
  /** ISO-8601 UTC, inclusive. */
  from: string;
  /** ISO-8601 UTC, exclusive. */
  to: string;
  topics?: readonly string[];
  /** Only entries after this id (for reading a long window page by page). */
  after_id?: number;
  limit: number;
}

/** The entries of a window, oldest first (by arrival, which is the id's order). */
export async function readEntries(db: Knex, q: JournalQuery): Promise<JournalEntry[]> {
  const query = db(TABLE).where("at", ">=", q.from).andWhere("at", "<", q.to).orderBy("id").limit(q.limit);
  if (q.topics?.length) query.whereIn("topic", q.topics as string[]);
  if (q.after_id !== undefined) query.andWhere("id", ">", q.after_id);
  const rows = (await query) as Row[];
  return rows.map((r) => ({ id: Number(r.id), at: r.at, topic: r.topic, sensor_id: r.sensor_id, payload: fromJsonText<unknown>(r.payload, null) }));
}

/** Deletes the entries received before the cutoff (ISO-8601 UTC); returns how many. */
export async function deleteEntriesBefore(db: Knex, cutoffIso: string, signal?: AbortSignal): Promise<number> {
  return deleteBefore(db, TABLE, "at", cutoffIso, { signal });
}

/** Rows and the bytes their payloads take, for the journal's cost. */
export async function journalSize(db: Knex): Promise<{ rows: number; payload_bytes: number }> {
  const row = (await db(TABLE)
    .count({ n: "*" })
    .sum({ bytes: db.raw("length(payload)") })
    .first()) as { n: number | string; bytes: number | string | null };
  return { rows: Number(row.n), payload_bytes: Number(row.bytes ?? 0) };
}
