/**
 * The SQLite store's connection, for synchronous work knex would only pass through.
 * better-sqlite3 is synchronous, so such work cannot interleave with a knex query or
 * transaction: the prepared REST reads (prepared-read.ts) and the WAL restart between two
 * transactions (wal-checkpointer.ts) use the connection when nothing holds it; the row inserts
 * (row-insert.ts) use the one their query would, a transaction's own included.
 */
import type { Knex } from "knex";

export interface SqliteConnection {
  prepare(sql: string): { all(bindings: readonly unknown[]): unknown[]; run(bindings: readonly unknown[]): unknown; readonly reader: boolean };
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
  driverName?: string;
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

/** A binding as knex's better-sqlite3 client passes it (dates as epoch ms, booleans as 0/1). */
export const sqliteBinding = (b: unknown): unknown => (b instanceof Date ? b.valueOf() : typeof b === "boolean" ? Number(b) : b);

/**
 * Runs `work` on the connection a query through `db` would use: a transaction's own, or one
 * from the pool (given back after); undefined on PostgreSQL, where knex keeps doing the work.
 * For statements knex would only pass through: better-sqlite3 is synchronous, so `work` runs
 * whole, between the transaction's other statements.
 */
export async function onSqliteConnection<T>(db: Knex, work: (conn: SqliteConnection) => T): Promise<T | undefined> {
  const client = db.client as KnexClient;
  if (client.driverName !== "better-sqlite3") return undefined;
  // As knex refuses it: a finished transaction's connection would run the statement outside any transaction.
  const trx = db as Partial<Pick<Knex.Transaction, "isCompleted">>;
  if (typeof trx.isCompleted === "function" && trx.isCompleted()) throw new Error("Transaction query already complete");
  const conn = (await client.acquireConnection()) as SqliteConnection;
  try {
    return work(conn);
  } finally {
    await client.releaseConnection(conn);
  }
}
