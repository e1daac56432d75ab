/**
 * The store's connection pool as it stands: connections lent out, idle ones, and queries
 * waiting for one (GET /metrics). knex keeps a tarn pool on its client once the first query
 * asked for a connection; before that, or after the store closed, there is none.
 */
import type { Knex } from "knex";

export interface PoolCounts {
  used: number;
  free: number;
  /** Acquires waiting for a connection: queries held up by the pool. */
  pending: number;
  /** The pool's size limit (SQLite: 1, the one connection; PostgreSQL: 10 by default). */
  max: number;
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max: number;
}

export function poolCounts(db: Knex): PoolCounts | null {
  const pool = (db.client as { pool?: TarnPool | null }).pool;
  if (!pool) return null;
  return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max };
}
