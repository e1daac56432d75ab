/**
 * A consistent copy of the SQLite store while the service writes to it: better-sqlite3's
 * `backup()` (SQLite's online backup API) on a connection of its own, so the service's one
 * connection is never held. The API copies a few pages per step and lets the event loop run
 * between steps; a write by the service between two steps restarts the copy, so after a restart
 * the rest is copied in one step (a read transaction in WAL mode: the service's writes go on
 * meanwhile). The copy then leaves WAL mode (one self-contained file) and loses the `kv` rows
 * that hold secrets, overwritten on disk (`secure_delete`), not merely unlinked.
 */
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

/** Pages per step before any restart: 4 MiB at SQLite's default 4 KiB page. */
const PAGES_PER_STEP = 1024;

/** Copies `sourceFile` to `destFile` (which must not exist) and answers each table's rows. */
export async function snapshotSqlite(sourceFile: string, destFile: string, secretKv: readonly string[]): Promise<Record<string, number>> {
  const source = new Database(sourceFile, { fileMustExist: true });
  try {
    source.pragma("busy_timeout = 5000");
    let previous = Number.POSITIVE_INFINITY;
    let step = PAGES_PER_STEP;
    await source.backup(destFile, {
      progress: ({ totalPages, remainingPages }) => {
        if (remainingPages > previous) step = totalPages; // restarted: the rest at once
        previous = remainingPages;
        return step;
      },
    });
  } finally {
    source.close();
  }
  const copy = new Database(destFile, { fileMustExist: true });
  try {
    sqliteVec.load(copy);
    copy.pragma("journal_mode = DELETE");
    copy.pragma("secure_delete = ON");
    if (secretKv.length) copy.prepare(`delete from kv where key in (${secretKv.map(() => "?").join(", ")})`).run(...secretKv);
    return sqliteCounts(copy);
  } finally {
    copy.close();
  }
}

/** Rows of each ordinary table (not SQLite's own, not a full-text index's shadow tables). */
export function sqliteCounts(db: Database.Database): Record<string, number> {
  const tables = db
    .prepare("select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name")
    .all() as Array<{
    name: string;
  }>;
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = (db.prepare(`select count(*) as n from "${name.replace(/"/g, '""')}"`).get() as { n: number }).n;
  return counts;
}
