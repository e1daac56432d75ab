/**
 * Before a restore: is a service using the store, and does the store hold a household already?
 *
 * - SQLite: every connection to a WAL database holds a shared lock on its file for as long as it
 *   is open, so a service that has it open, busy or idle, makes an exclusive lock fail at once.
 *   That is SQLite's own knowledge, not a guess from a pid file.
 * - PostgreSQL: careflow's connections are named (`application_name` careflow, store.ts); a
 *   connection of that name to the database, or the service's 30-second `kv` write (the
 *   database part's probe) within the last two minutes, means a service is there. Its pool
 *   may have closed every idle connection for a moment; the write says it is alive anyway.
 */
import { kvUpdatedAt } from "../db/kv";
import fs from "node:fs";
import Database from "better-sqlite3";
import type { Knex } from "knex";
import { STORE_APPLICATION_NAME } from "../db/store";

/** The database part's kv write (platform/health/gauges.ts): every 30 s while a service runs. */
const HEARTBEAT_KEY = "health.last_write";
const HEARTBEAT_FRESH_MS = 2 * 60_000;

/** Why the SQLite file is in use, or null when nothing has it open. */
export function sqliteInUse(file: string): string | null {
  if (!fs.existsSync(file)) return null;
  const probe = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    probe.pragma("locking_mode = EXCLUSIVE");
    probe.exec("begin exclusive");
    probe.exec("commit");
    return null;
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_BUSY") return `${file} is open in another process (a careflow service, or npm run backup): stop it first`;
    throw err;
  } finally {
    probe.close();
  }
}

/** Why the PostgreSQL database is in use by a service, or null. `nowMs`: wall time. */
export async function postgresInUse(db: Knex, nowMs: number): Promise<string | null> {
  const others = (
    await db.raw<{ rows: Array<{ n: string }> }>(
      "select count(*) as n from pg_stat_activity where datname = current_database() and application_name = ? and pid <> pg_backend_pid()",
      [STORE_APPLICATION_NAME],
    )
  ).rows[0];
  if (Number(others.n) > 0) return `a careflow service is connected to this database (${others.n} connection(s)): stop it first`;
  if (!(await db.schema.hasTable("kv"))) return null;
  const beatAt = await kvUpdatedAt(db, HEARTBEAT_KEY);
  const at = beatAt ? Date.parse(beatAt) : NaN;
  if (Number.isFinite(at) && nowMs - at < HEARTBEAT_FRESH_MS && at <= nowMs + 60_000)
    return `a careflow service wrote to this database at ${beatAt} (it does every 30 s while it runs): stop it first, or wait two minutes if it has stopped`;
  return null;
}

/** The tables a household's own data is in: any row in one, and the store is not empty. */
export const HOUSEHOLD_TABLES = ["persons", "rooms", "rules", "knowledge_documents", "face_descriptors", "workflow_executions", "alerts"] as const;

/** Rows of the household tables that hold any (empty: the store holds no household). */
export async function householdRows(db: Knex): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const table of HOUSEHOLD_TABLES) {
    if (!(await db.schema.hasTable(table))) continue;
    const row = (await db(table).count({ n: "*" }).first()) as { n: number | string } | undefined;
    const n = Number(row?.n ?? 0);
    if (n > 0) found[table] = n;
  }
  return found;
}
