/**
 * Opens the one store: SQLite (WAL) in the data dir by default, PostgreSQL when
 * DATABASE_URL is a postgres:// URL. Both run the same knex migrations.
 */
import fs from "node:fs";
import path from "node:path";
import knexFactory, { type Knex } from "knex";
import * as sqliteVec from "sqlite-vec";
import { packageInfo } from "../config/app-info";
import { upgradeStore } from "./schema-upgrade";
import { idleSqliteConnection, rememberSqliteConnection } from "./idle-sqlite";
import { SAFETY_NET_PAGES, startWalCheckpointer, type WalCheckpointer } from "./wal-checkpointer";
import { ensureIncrementalVacuum, type InfoLog } from "./sqlite-space";

export type Dialect = "sqlite" | "postgres";

export interface Store {
  db: Knex;
  dialect: Dialect;
  /** Where the data lives, for logs and /health (no credentials). */
  location: string;
  /** Close the connections (and the SQLite checkpointer). */
  close(): Promise<void>;
}

/** How careflow's connections are named on PostgreSQL (`pg_stat_activity.application_name`). */
export const STORE_APPLICATION_NAME = "careflow";

/** Distinct SQL texts whose prepared statements are kept (least recently used dropped first). */
export const STATEMENT_CACHE_SIZE = 500;

interface PreparingConnection {
  prepare(sql: string): unknown;
}

/**
 * knex prepares every query anew on better-sqlite3, and preparing is a good part of a small
 * query's cost (the REST path's profile, issue 29). The same SQL text reuses its statement:
 * knex only calls `all`/`run` on it, which finish before the next query on the one connection,
 * and SQLite re-prepares a statement by itself when the schema under it changes.
 */
export function cachePreparedStatements(conn: PreparingConnection, size = STATEMENT_CACHE_SIZE): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (statement !== undefined) {
      cache.delete(sql); // re-inserted below: the map's order is the recency order
    } else {
      statement = prepare(sql);
      if (cache.size >= size) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, statement);
    return statement;
  };
}

export function storeConfig(databaseUrl: string | undefined, dataDir: string): { config: Knex.Config; dialect: Dialect; location: string } {
  if (databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl)) {
    const u = new URL(databaseUrl);
    return {
      dialect: "postgres",
      location: `postgres://${u.host}${u.pathname}`,
      // Named, so a restore can see that a service is connected (platform/backup/store-state.ts).
      config: { client: "pg", connection: { connectionString: databaseUrl, application_name: STORE_APPLICATION_NAME }, pool: { min: 0, max: 10 } },
    };
  }
  const file = databaseUrl ? databaseUrl.replace(/^sqlite:(\/\/)?/, "") : path.join(dataDir, "careflow.db");
  return {
    dialect: "sqlite",
    location: file,
    config: {
      client: "better-sqlite3",
      connection: { filename: file },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        // WAL lets readers run beside the writer; foreign keys are off by default in SQLite.
        afterCreate: (conn: PreparingConnection & { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
          // First: a new file takes it only before anything is written (sqlite-space.ts).
          conn.pragma("auto_vacuum = INCREMENTAL");
          conn.pragma("journal_mode = WAL");
          conn.pragma("synchronous = NORMAL");
          conn.pragma("foreign_keys = ON");
          conn.pragma("busy_timeout = 5000");
          // The checkpointer thread keeps the WAL short; this is the safety net.
          conn.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
          // sqlite-vec: the vector distance functions the knowledge search ranks chunks with.
          sqliteVec.load(conn as unknown as Parameters<typeof sqliteVec.load>[0]);
          cachePreparedStatements(conn);
          done(null, conn);
        },
      },
    },
  };
}

export interface OpenStoreOptions {
  log?: InfoLog;
  /** The schema's migrations (tests add a failing one). */
  migrations?: Knex.MigrationSource<string>;
  /** A backup of the store before an upgrade, given the store as it is (answers the file). */
  beforeUpgrade?: (db: Knex, dialect: Dialect, from: string, to: string) => Promise<string>;
  /** false: a store behind this careflow is not upgraded (schema-upgrade.ts). */
  migrate?: boolean;
}

export async function openStore(databaseUrl: string | undefined, dataDir: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const { config, dialect, location } = storeConfig(databaseUrl, dataDir);
  if (dialect === "sqlite" && location !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(location)), { recursive: true });
  const db = knexFactory(config);
  try {
    const before = opts.beforeUpgrade;
    await upgradeStore(db, {
      location,
      version: packageInfo().version,
      log: opts.log,
      source: opts.migrations,
      migrate: opts.migrate,
      beforeUpgrade: before ? (from, to) => before(db, dialect, from, to) : undefined,
    });
  } catch (err) {
    await db.destroy();
    throw err;
  }
  // A file made before careflow gave space back: rewritten once (docs/retention.md).
  if (dialect === "sqlite") await ensureIncrementalVacuum(db, opts.log);
  if (dialect === "sqlite") await rememberSqliteConnection(db);
  const checkpointer: WalCheckpointer | null =
    dialect === "sqlite" && location !== ":memory:" ? startWalCheckpointer(location, { idleConnection: () => idleSqliteConnection(db) }) : null;
  return {
    db,
    dialect,
    location,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** Is the store answering? Used by /health. */
export async function pingStore(db: Knex): Promise<boolean> {
  try {
    await db.raw("select 1");
    return true;
  } catch {
    return false;
  }
}
