/**
 * SQLite: the batch goes through prepared statements on knex's own connection (the pool
 * holds exactly one), in one synchronous transaction. Building a multi-row statement per
 * batch cost more than SQLite spent writing it; a prepared statement is parsed once per
 * connection and only binds values after that.
 */
import type Database from "better-sqlite3";
import type { Knex } from "knex";
import { EVENT_LOG_COLUMNS, EVENT_LOG_MUTABLE, FIXED_COLUMNS, MUTABLE_COLUMNS, type RunWrite } from "../execution-rows";
import type { ExecutionWriter } from "./execution-writer";

interface Statements {
  write: (batch: readonly RunWrite[]) => void;
}

const placeholders = (n: number): string => Array.from({ length: n }, () => "?").join(", ");
const assignments = (cols: readonly string[]): string => cols.map((c) => `"${c}" = ?`).join(", ");
const names = (cols: readonly string[]): string => cols.map((c) => `"${c}"`).join(", ");

function prepare(conn: Database.Database): Statements {
  const execCols = [...FIXED_COLUMNS, ...MUTABLE_COLUMNS];
  const insertRun = conn.prepare(`insert into "workflow_executions" (${names(execCols)}) values (${placeholders(execCols.length)})`);
  const updateRun = conn.prepare(`update "workflow_executions" set ${assignments(MUTABLE_COLUMNS)} where "id" = ?`);
  const insertLog = conn.prepare(`insert into "event_logs" (${names(EVENT_LOG_COLUMNS)}) values (${placeholders(EVENT_LOG_COLUMNS.length)})`);
  const updateLog = conn.prepare(`update "event_logs" set ${assignments(EVENT_LOG_MUTABLE)} where "id" = ?`);
  const write = conn.transaction((batch: readonly RunWrite[]) => {
    for (const w of batch) {
      if (w.fixed && w.log) {
        insertRun.run([...w.fixed, ...w.mutable]);
        insertLog.run(w.log);
      } else {
        updateRun.run([...w.mutable, w.id]);
        updateLog.run([w.log_status, w.pipeline_data, w.event_log_id]);
      }
    }
  });
  return { write };
}

export function sqliteExecutionWriter(db: Knex): ExecutionWriter {
  const prepared = new WeakMap<Database.Database, Statements>();
  return async (batch) => {
    const conn = (await db.client.acquireConnection()) as Database.Database;
    try {
      let st = prepared.get(conn);
      if (!st) prepared.set(conn, (st = prepare(conn)));
      st.write(batch);
    } finally {
      await db.client.releaseConnection(conn);
    }
  };
}
