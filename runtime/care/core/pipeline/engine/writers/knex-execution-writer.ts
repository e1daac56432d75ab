/**
 * PostgreSQL: multi-row statements per chunk, in one transaction; a round trip per
 * statement is what costs there, not building it.
 *
 * With an `owner` (a cluster instance, docs/cluster.md) the instances share the tables: new
 * runs are stamped with their instance, a run is only updated while it is still this
 * instance's (a survivor may have recovered it), and snapshots are upserted by digest for the
 * store's ids instead of ids handed out in process.
 */
import type { Knex } from "knex";
import { FIXED_COLUMNS, MUTABLE_COLUMNS, SNAPSHOT_COLUMNS, type SqlValue, type WriteBatch } from "../execution-rows";
import type { ExecutionWriter, WriteResult } from "./execution-writer";

const CHUNK = 100;
const RUN_COLUMNS = [...FIXED_COLUMNS, ...MUTABLE_COLUMNS];
const SNAPSHOT_AT = FIXED_COLUMNS.indexOf("graph_snapshot_id");

const record = (cols: readonly string[], values: readonly SqlValue[]): Record<string, SqlValue> => Object.fromEntries(cols.map((c, i) => [c, values[i]]));

export function knexExecutionWriter(db: Knex, owner: string | null = null): ExecutionWriter {
  if (owner !== null) return sharedWriter(db, owner);
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
      for (let i = 0; i < changed.length; i += CHUNK) await updateRuns(trx, changed.slice(i, i + CHUNK), null);
      // Ids are handed out in process, and explicit ids do not move a serial's sequence;
      // keep it ahead for any other writer.
      if (fresh.length) await trx.raw(`select setval(pg_get_serial_sequence('workflow_executions', 'id'), (select max(id) from workflow_executions))`);
      if (batch.snapshots.length) await trx.raw(`select setval(pg_get_serial_sequence('graph_snapshots', 'id'), (select max(id) from graph_snapshots))`);
    });
  };
}

/** A cluster instance's writer: run ids come from the sequence (run-ids.ts), so nothing is set back. */
function sharedWriter(db: Knex, owner: string): ExecutionWriter {
  return (batch) =>
    db.transaction(async (trx): Promise<WriteResult> => {
      const snapshotIds = new Map<number, number>();
      for (const row of batch.snapshots) {
        const { id: provisional, ...values } = record(SNAPSHOT_COLUMNS, row);
        // Another instance may have written the same rule version: its row (and id) is the one.
        const [found] = (await trx("graph_snapshots").insert(values).onConflict("digest").merge(["digest"]).returning("id")) as Array<{ id: number | string }>;
        snapshotIds.set(Number(provisional), Number(found.id));
      }
      const fresh = batch.runs.filter((w) => w.fixed);
      const changed = batch.runs.filter((w) => !w.fixed);
      for (let i = 0; i < fresh.length; i += CHUNK) {
        const rows = fresh.slice(i, i + CHUNK).map((w) => {
          const fixed = w.fixed!.slice();
          const snapshot = snapshotIds.get(Number(fixed[SNAPSHOT_AT]));
          if (snapshot !== undefined) fixed[SNAPSHOT_AT] = snapshot;
          return { ...record(RUN_COLUMNS, fixed.concat(w.mutable)), instance_id: owner };
        });
        await trx("workflow_executions").insert(rows);
      }
      const notOwned: number[] = [];
      for (let i = 0; i < changed.length; i += CHUNK) notOwned.push(...(await updateRuns(trx, changed.slice(i, i + CHUNK), owner)));
      return { snapshotIds, notOwned };
    });
}

/**
 * Update existing runs by id, many in one statement: `update ... from (values ...)`. With an
 * owner, only the rows still this instance's; returns the ids not updated then.
 */
async function updateRuns(trx: Knex.Transaction, rows: WriteBatch["runs"], owner: string | null): Promise<number[]> {
  const all = ["id", ...MUTABLE_COLUMNS];
  const tuple = `(${all.map(() => "?").join(", ")})`;
  const sets = MUTABLE_COLUMNS.map((c) => `"${c}" = v."${c}"`).join(", ");
  // Parameters in VALUES are text; every changing column is text, the id is cast back.
  const sql = `update "workflow_executions" as t set ${sets} from (values ${rows.map(() => tuple).join(", ")}) as v(${all.map((c) => `"${c}"`).join(", ")}) where t."id" = v."id"::integer`;
  const values = rows.flatMap((w) => [w.id, ...w.mutable]);
  if (owner === null) {
    await trx.raw(sql, values);
    return [];
  }
  const result = (await trx.raw(`${sql} and t."instance_id" = ? returning t."id"`, [...values, owner])) as { rows: Array<{ id: number }> };
  const written = new Set(result.rows.map((r) => Number(r.id)));
  return rows.map((w) => w.id).filter((id) => !written.has(id));
}
