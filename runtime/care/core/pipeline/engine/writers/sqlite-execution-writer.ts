/**
 * SQLite: the batch goes through prepared statements on knex's own connection (the pool
 * holds exactly one), in one synchronous transaction. Building a multi-row statement per
 * batch cost more than SQLite spent writing it; a prepared statement is parsed once per
 * connection and only binds values after that.
 */
import type Database from "better-sqlite3";
import type { Knex } from "knex";
import { FIXED_COLUMNS, MUTABLE_COLUMNS, SNAPSHOT_COLUMNS, type WriteBatch } from "../execution-rows";
import type { ExecutionWriter } from "./execution-writer";

const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");
const names = (cols: readonly string[]): string => cols.map((c) => `"${c}"`).join(", ");

function prepare(conn: Database.Database): (batch: WriteBatch) => void {
  const runCols = [...FIXED_COLUMNS, ...MUTABLE_COLUMNS];
  const insertSnapshot = conn.prepare(
    `insert into "graph_snapshots" (${names(SNAPSHOT_COLUMNS)}) values (${placeholders(SNAPSHOT_COLUMNS.length)}) on conflict ("digest") do nothing`,
  );
  const insertRun = conn.prepare(`insert into "workflow_executions" (${names(runCols)}) values (${placeholders(runCols.length)})`);
  const updateRun = conn.prepare(`update "workflow_executions" set ${MUTABLE_COLUMNS.map((c) => `"${c}" = ?`).join(", ")} where "id" = ?`);
  return conn.transaction((batch: WriteBatch) => {
    for (const row of batch.snapshots) insertSnapshot.run(row);
    for (const w of batch.runs) {
      if (w.fixed) insertRun.run(w.fixed.concat(w.mutable));
      else updateRun.run(w.mutable.concat(w.id));
    }
  });
}

export function sqliteExecutionWriter(db: Knex): ExecutionWriter {
  const prepared = new WeakMap<Database.Database, (batch: WriteBatch) => void>();
  return async (batch) => {
    const conn = (await db.client.acquireConnection()) as Database.Database;
    try {
      let write = prepared.get(conn);
      if (!write) prepared.set(conn, (write = prepare(conn)));
      write(batch);
    } finally {
      await db.client.releaseConnection(conn);
    }
  };
}
