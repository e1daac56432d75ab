/**
 * Rows older than a cutoff, deleted a few thousand per statement. Retention prunes what an
 * hour (or a day) left behind, and for the tracking tables at 2,000 events a second that is
 * millions of rows: as one statement it held SQLite's connection, and so the service's only
 * thread (better-sqlite3 is synchronous), for seconds, with requests, rule steps and tracking
 * batches waiting behind it; PostgreSQL held its locks and wrote the WAL in one burst. Between
 * two statements the thread takes its turn at everything else.
 */
import type { Knex } from "knex";
import { isPostgres, quote } from "./insert-sql";

/** Rows per statement: each takes a few ms on SQLite. */
export const DELETE_CHUNK = 5000;
/**
 * Between two statements: a prune of a million rows then takes a few seconds in the
 * background instead of holding the store, and SQLite's checkpointer thread keeps up with the
 * log the deletes write (run back to back, they grew it past the point where the service's own
 * connection checkpoints inside a commit: a 270 ms stall).
 */
export const PAUSE_MS = 25;

export interface DeleteOptions {
  chunk?: number;
  pauseMs?: number;
  /** Stops between two statements once aborted (the service stopping); the rest goes at the next prune. */
  signal?: AbortSignal;
}

/** The rows a DELETE removed, as each client reports it. */
const removed = (result: unknown): number => {
  const r = result as { rowCount?: number | null; changes?: number } | null;
  return Number(r?.rowCount ?? r?.changes ?? 0);
};

/** Deletes the rows of `table` whose `column` is below `before`; returns how many. */
export async function deleteBefore(db: Knex, table: string, column: string, before: string | number, opts: DeleteOptions = {}): Promise<number> {
  const { chunk = DELETE_CHUNK, pauseMs = PAUSE_MS, signal } = opts;
  const t = quote(table);
  // By each row's own address, so no table needs a key of its own for this.
  const older = (address: string) => `select ${address} from ${t} where ${quote(column)} < ? limit ?`;
  const sql = isPostgres(db) ? `delete from ${t} where ctid = any(array(${older("ctid")}))` : `delete from ${t} where rowid in (${older("rowid")})`;
  let total = 0;
  for (;;) {
    const n = removed(await db.raw(sql, [before, chunk]));
    total += n;
    if (n < chunk || signal?.aborted) return total;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/**
 * One statement of a prune: deletes at most `limit` rows of `table` for which `where` (SQL with
 * `?` placeholders) holds; returns how many. The retention job calls it again until a statement
 * deletes fewer than `limit`, pausing between two, so no prune holds the store for long.
 */
export async function deleteSomeWhere(db: Knex, table: string, where: string, bindings: readonly Knex.Value[], limit: number): Promise<number> {
  const t = quote(table);
  const some = (address: string) => `select ${address} from ${t} where ${where} limit ?`;
  const sql = isPostgres(db) ? `delete from ${t} where ctid = any(array(${some("ctid")}))` : `delete from ${t} where rowid in (${some("rowid")})`;
  return removed(await db.raw(sql, [...bindings, limit]));
}
