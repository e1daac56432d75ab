/**
 * Writes one group commit (new graph snapshots, new and changed runs) in one transaction.
 * Each dialect has the writer that is quickest on it.
 */
import type { Knex } from "knex";
import type { Dialect } from "../../../../../platform/db/store";
import type { WriteBatch } from "../execution-rows";
import { knexExecutionWriter } from "./knex-execution-writer";
import { sqliteExecutionWriter } from "./sqlite-execution-writer";

/** What a cluster instance's write tells back (one instance alone: nothing). */
export interface WriteResult {
  /** The store's ids of the snapshots the batch named by provisional ids. */
  snapshotIds: Map<number, number>;
  /** Runs not written: another instance recovered them (their instance was taken for dead). */
  notOwned: number[];
}

export type ExecutionWriter = (batch: WriteBatch) => Promise<WriteResult | void>;

/** `owner`: this instance's id when the cluster is on (PostgreSQL), null for one instance. */
export function executionWriter(db: Knex, dialect: Dialect, owner: string | null = null): ExecutionWriter {
  return dialect === "sqlite" ? sqliteExecutionWriter(db) : knexExecutionWriter(db, owner);
}
