/**
 * The SQLite store's one pooled connection, for synchronous work when nothing holds it.
 * better-sqlite3 is synchronous, so work done on the idle connection cannot interleave with
 * a knex query or transaction: the prepared REST reads (prepared-read.ts) and the WAL restart
 * between two transactions (wal-checkpointer.ts) use it.
 */
import type { Knex } from "knex";

export interface SqliteConnection {
  prepare(sql: string): { all(bindings: readonly unknown[]): unknown[] };
  pragma(source: string): unknown;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

interface PoolCounts {
  numUsed(): number;
  numPendingAcquires(): number;
}

interface KnexClient {
  pool?: PoolCounts;
  acquireConnection(): Promise<unknown>;
  releaseConnection(conn: unknown): unknown;
}

const sqliteConnections = new WeakMap<Knex, SqliteConnection>();

/** Called once a SQLite store is open: its (one) pooled connection, for work when it is idle. */
export async function rememberSqliteConnection(db: Knex): Promise<void> {
  const client = db.client as KnexClient;
  const conn = await client.acquireConnection();
  await client.releaseConnection(conn);
  sqliteConnections.set(db, conn as SqliteConnection);
}

/** The SQLite connection when no query or transaction holds it, else undefined (PostgreSQL: always). */
export function idleSqliteConnection(db: Knex): SqliteConnection | undefined {
  const conn = sqliteConnections.get(db);
  if (!conn?.open || conn.inTransaction) return undefined;
  const pool = (db.client as KnexClient).pool;
  return pool && pool.numUsed() === 0 && pool.numPendingAcquires() === 0 ? conn : undefined;
}
