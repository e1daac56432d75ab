/**
 * PostgreSQL: one multi-row upsert per table and chunk, in one transaction; a round trip
 * per statement is what costs there, not building it.
 */
import type { Knex } from "knex";
import { EVENT_LOG_COLUMNS, EVENT_LOG_MUTABLE, FIXED_COLUMNS, MUTABLE_COLUMNS, type RunWrite, type SqlValue } from "../execution-rows";
import type { ExecutionWriter } from "./execution-writer";

const CHUNK = 100;

const record = (cols: readonly string[], values: readonly SqlValue[]): Record<string, SqlValue> => Object.fromEntries(cols.map((c, i) => [c, values[i]]));

export function knexExecutionWriter(db: Knex): ExecutionWriter {
  return async (batch) => {
    await db.transaction(async (trx) => {
      const fresh = batch.filter((w) => w.fixed);
      for (let i = 0; i < batch.length; i += CHUNK) {
        const chunk = batch.slice(i, i + CHUNK);
        const logs = chunk.map((w) => (w.log ? record(EVENT_LOG_COLUMNS, w.log) : { id: w.event_log_id, status: w.log_status, pipeline_data_json: w.pipeline_data }));
        const freshLogs = logs.filter((_, j) => chunk[j].log);
        const oldLogs = logs.filter((_, j) => !chunk[j].log);
        if (freshLogs.length) await trx("event_logs").insert(freshLogs);
        if (oldLogs.length) await updateMany(trx, "event_logs", EVENT_LOG_MUTABLE, oldLogs);
        const freshRuns = chunk.filter((w) => w.fixed).map((w) => record([...FIXED_COLUMNS, ...MUTABLE_COLUMNS], [...w.fixed!, ...w.mutable]));
        const oldRuns = chunk.filter((w) => !w.fixed).map((w) => ({ id: w.id, ...record(MUTABLE_COLUMNS, w.mutable) }));
        if (freshRuns.length) await trx("workflow_executions").insert(freshRuns);
        if (oldRuns.length) await updateMany(trx, "workflow_executions", MUTABLE_COLUMNS, oldRuns);
      }
      if (fresh.length) {
        // Ids are handed out in process, and explicit ids do not move a serial's sequence;
        // keep it ahead for any other writer.
        for (const table of ["event_logs", "workflow_executions"]) {
          await trx.raw(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
        }
      }
    });
  };
}

/** Update existing rows by id, many in one statement: `update ... from (values ...)`. */
async function updateMany(trx: Knex.Transaction, table: string, cols: readonly string[], rows: Array<Record<string, SqlValue>>): Promise<void> {
  const all = ["id", ...cols];
  const tuple = `(${all.map(() => "?").join(", ")})`;
  const sets = cols.map((c) => `"${c}" = v."${c}"`).join(", ");
  // Parameters in VALUES are text; every changing column is text, the id is cast back.
  await trx.raw(`update "${table}" as t set ${sets} from (values ${rows.map(() => tuple).join(", ")}) as v(${all.map((c) => `"${c}"`).join(", ")}) where t."id" = v."id"::integer`, rows.flatMap((r) => all.map((c) => r[c] ?? null)));
}
