/**
 * PostgreSQL backups through its own tools: `pg_dump` in the custom format, on a snapshot this
 * process exports from a read-only repeatable-read transaction (so the `kv` rows read here and
 * the row counts are of the very same instant as the dump), and `pg_restore` back. The server's
 * own tools rather than a row copy: they know every type, index, function and text-search
 * configuration the migrations made. The password goes in PGPASSWORD, never on a command line
 * another user could read in the process list.
 */
import { kvRowsExcept, type KvRow } from "../db/kv";
import { spawn } from "node:child_process";
import type { Knex } from "knex";

export class PgToolError extends Error {}

export type { KvRow };

/** `tool`'s output; a clear error when it is not installed or fails. */
function run(tool: string, args: readonly string[], databaseUrl: string): Promise<void> {
  const u = new URL(databaseUrl);
  const password = decodeURIComponent(u.password);
  u.password = "";
  const env: NodeJS.ProcessEnv = { ...process.env, ...(password ? { PGPASSWORD: password } : {}) };
  return new Promise((resolve, reject) => {
    const child = spawn(tool, [...args, `--dbname=${u.toString()}`], { env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on("error", (err: NodeJS.ErrnoException) =>
      reject(
        new PgToolError(
          err.code === "ENOENT"
            ? `${tool} is not installed (or not on PATH): a PostgreSQL store is backed up and restored with the PostgreSQL client tools of the server's version or newer (Debian/Ubuntu: apt install postgresql-client)`
            : `${tool} could not start: ${err.message}`,
        ),
      ),
    );
    child.on("close", (code) => (code === 0 ? resolve() : reject(new PgToolError(`${tool} failed (exit ${code}): ${stderr.trim() || "no message"}`))));
  });
}

/** Row counts of the current schema's tables, in `db`'s transaction. */
async function pgCounts(db: Knex): Promise<Record<string, number>> {
  const tables = (
    await db.raw<{ rows: Array<{ name: string }> }>(
      "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name",
    )
  ).rows;
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = Number((await db.raw<{ rows: Array<{ n: string }> }>("select count(*) as n from ??", [name])).rows[0].n);
  return counts;
}

export interface PgDumpOptions {
  /** `kv` keys left out (secrets). */
  secretKv: readonly string[];
  /** Tables whose rows are not dumped (their schema is): `kv` (read here without the secrets), the media table (objects come as entries). */
  excludeData: readonly string[];
  /** The pg_dump to run (tests: one that is missing). */
  pgDump?: string;
}

/** Dumps the store to `destFile`; answers the `kv` rows (secrets left out) and the counts of the same instant. */
export async function dumpPostgres(
  db: Knex,
  databaseUrl: string,
  destFile: string,
  opts: PgDumpOptions,
): Promise<{ kv: KvRow[]; counts: Record<string, number> }> {
  return db.transaction(async (trx) => {
    await trx.raw("set transaction isolation level repeatable read, read only");
    const snapshot = (await trx.raw<{ rows: Array<{ s: string }> }>("select pg_export_snapshot() as s")).rows[0].s;
    const kv = await kvRowsExcept(trx, opts.secretKv);
    const counts = await pgCounts(trx);
    // The transaction stays open while pg_dump runs: its snapshot lives as long as this one.
    await run(
      opts.pgDump ?? "pg_dump",
      [
        "--format=custom",
        "--no-owner",
        "--no-privileges",
        `--snapshot=${snapshot}`,
        ...opts.excludeData.map((t) => `--exclude-table-data=${t}`),
        `--file=${destFile}`,
      ],
      databaseUrl,
    );
    return { kv, counts };
  });
}

/** Restores a dump into `databaseUrl`; `clean`: drops the dump's objects that exist there first. */
export async function restorePostgres(databaseUrl: string, dumpFile: string, opts: { clean: boolean; pgRestore?: string }): Promise<void> {
  await run(
    opts.pgRestore ?? "pg_restore",
    ["--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", ...(opts.clean ? ["--clean", "--if-exists"] : []), dumpFile],
    databaseUrl,
  );
}
