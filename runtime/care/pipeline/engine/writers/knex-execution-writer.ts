/**
 * PostgreSQL: multi-row statements per chunk, in one transaction; a round trip per
 * statement is what costs there, not building it.
 */
import type { Knex } from "knex";
import { FIXED_COLUMNS, MUTABLE_COLUMNS, SNAPSHOT_COLUMNS, type SqlValue, type WriteBatch } from "../execution-rows";
import type { ExecutionWriter } from "./execution-writer";

const CHUNK = 100;
const RUN_COLUMNS = [...FIXED_COLUMNS, ...MUTABLE_COLUMNS];

const record = (cols: readonly string[], values: readonly SqlValue[]): Record<string, SqlValue> => Object.fromEntries(cols.map((c, i) => [c, values[i]]));

export function knexExecutionWriter(db: Knex): ExecutionWriter {
  return async (batch) => {
    await db.transaction(async (trx) => {
      if (batch.snapshots.length) {
        await trx("graph_snapshots")
          .insert(batch.snapshots.map((row) => record(SNAPSHOT_COLUMNS, row)))
          .onConflict("digest")
          .ignore();
      }
      const fresh = batch.runs.filter((w) => w.fixed);
      const changed = batch.runs.filter((w) => !w.fixed);
      for (let i = 0; i < fresh.length; i += CHUNK) {
        await trx("workflow_executions").insert(fresh.slice(i, i + CHUNK).map((w) => record(RUN_COLUMNS, w.fixed!.concat(w.mutable))));
      }
      for (let i = 0; i < changed.length; i += CHUNK) await updateRuns(trx, changed.slice(i, i + CHUNK));
      // Ids are handed out in process, and explicit ids do not move a serial's sequence;
      // keep it ahead for any other writer.
      if (fresh.length) await trx.raw(`select setval(pg_get_serial_sequence('workflow_executions', 'id'), (select max(id) from workflow_executions))`);
      if (batch.snapshots.length) await trx.raw(`select setval(pg_get_serial_sequence('graph_snapshots', 'id'), (select max(id) from graph_snapshots))`);
    });
  };
}

/** Update existing runs by id, many in one statement: `update ... from (values ...)`. */
async function updateRuns(trx: Knex.Transaction, rows: WriteBatch["runs"]): Promise<void> {
  const all = ["id", ...MUTABLE_COLUMNS];
  const tuple = `(${all.map(() => "?").join(", ")})`;
  const sets = MUTABLE_COLUMNS.map((c) => `"${c}" = v."${c}"`).join(", ");
  // Parameters in VALUES are text; every changing column is text, the id is cast back.
  await trx.raw(
    `update "workflow_executions" as t set ${sets} from (values ${rows.map(() => tuple).join(", ")}) as v(${all.map((c) => `"${c}"`).join(", ")}) where t."id" = v."id"::integer`,
    rows.flatMap((w) => [w.id, ...w.mutable]),
  );
}
