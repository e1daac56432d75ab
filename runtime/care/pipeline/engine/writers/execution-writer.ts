/**
 * Writes one group commit (new graph snapshots, new and changed runs) in one transaction.
 * Each dialect has the writer that is quickest on it.
 */
import type { Knex } from "knex";
import type { Dialect } from "../../../../platform/db/store";
import type { WriteBatch } from "../execution-rows";
import { knexExecutionWriter } from "./knex-execution-writer";
import { sqliteExecutionWriter } from "./sqlite-execution-writer";

export type ExecutionWriter = (batch: WriteBatch) => Promise<void>;

export function executionWriter(db: Knex, dialect: Dialect): ExecutionWriter {
  return dialect === "sqlite" ? sqliteExecutionWriter(db) : knexExecutionWriter(db);
}
