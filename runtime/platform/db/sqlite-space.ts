/**
 * A SQLite file that gives the space of deleted rows back (docs/retention.md). SQLite keeps
 * a deleted row's pages as free pages inside the file: years of retention would keep the file
 * at its largest size. With `auto_vacuum = INCREMENTAL` (set on every connection before
 * anything else, so a new file is made so) `PRAGMA incremental_vacuum` moves free pages to
 * the end and truncates the file; the retention job runs it after a prune that deleted rows,
 * a few thousand pages at a time. A file made before needs one VACUUM to take the mode: done
 * at start, only when the mode is not yet incremental, and logged (it rewrites the whole file).
 * PostgreSQL's autovacuum gives its space back to the tables on its own.
 */
import type { Knex } from "knex";
import { isPostgres } from "./insert-sql";
import { onSqliteConnection } from "./idle-sqlite";

/** Pages freed per statement: 8 MB of 4 KB pages, a few ms. */
const PAGES_PER_STEP = 2000;
const PAUSE_MS = 25;

/** Where the one-time VACUUM is told. */
export type InfoLog = { info(obj: object, msg: string): void };

const pragmaNumber = async (db: Knex, name: string): Promise<number> => {
  const rows = (await db.raw(`pragma ${name}`)) as Array<Record<string, unknown>>;
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
};

/** SQLite's `auto_vacuum` mode of this store: 0 none, 1 full, 2 incremental; null on PostgreSQL. */
export async function autoVacuumMode(db: Knex): Promise<number | null> {
  return isPostgres(db) ? null : pragmaNumber(db, "auto_vacuum");
}

/** Makes a SQLite file incremental when it is not yet (one VACUUM, logged); true when it did. */
export async function ensureIncrementalVacuum(db: Knex, log?: InfoLog): Promise<boolean> {
  const mode = await autoVacuumMode(db);
  if (mode === null || mode === 2) return false;
  const started = Date.now();
  await db.raw("pragma auto_vacuum = incremental");
  await db.raw("vacuum");
  log?.info(
    { was: mode, ms: Date.now() - started },
    "store: the SQLite file was rewritten once (VACUUM) to give deleted rows' space back from now on (auto_vacuum = INCREMENTAL)",
  );
  return true;
}

/** Frees the file's free pages, a step at a time (SQLite); PostgreSQL: nothing (autovacuum). Answers the pages freed. */
export async function giveSpaceBack(db: Knex, signal?: AbortSignal): Promise<number> {
  if (isPostgres(db)) return 0;
  let freed = 0;
  for (;;) {
    const free = await pragmaNumber(db, "freelist_count");
    if (free === 0 || signal?.aborted) return freed;
    // On the connection itself: through knex the statement is stepped once, which frees one page.
    await onSqliteConnection(db, (conn) => conn.pragma(`incremental_vacuum(${Math.min(free, PAGES_PER_STEP)})`));
    const left = await pragmaNumber(db, "freelist_count");
    // Not incremental (a file whose VACUUM has not run): nothing moves, so stop.
    if (left >= free) return freed;
    freed += free - left;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
}
