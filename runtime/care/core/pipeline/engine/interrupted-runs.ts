/**
 * Runs a stop cut short, as a start (recovery.ts) or a survivor (run-adoption.ts) finds them:
 * still `running` in the store. Each says why it stopped and where: its steps under way
 * (`running` records) become `interrupted` ones with what they had done (interrupted-steps.ts),
 * and the run's reason names them. A run with a parked branch is parked again, the
 * interrupted branch noted among its errors; any other run fails with that reason.
 */
import type { Knex } from "knex";
import type { CareContext } from "../../context";
import { toJsonText } from "../../../../platform/db/json-column";
import { parseRow, selectExecutions, whereStatus, type ExecutionRow } from "./execution-rows";
import { stepById } from "./graph-snapshot";
import { interruptedRecord, stepFindings } from "./interrupted-steps";
import type { StepRecord } from "./run-state";
import { encodeStepRecords } from "./step-records-codec";

/** Runs read and written per round (a start after a busy crash may find many). */
const CHUNK = 200;

export interface InterruptedRuns {
  failed: number[];
  reparked: Array<{ id: number; resume_at: string | null }>;
}

/**
 * Settles the running runs `scope` selects (qualified as `we.` when `table` is "we"): `cause`
 * says what stopped them ("a restart"), `extra` is set on each row with its new state (its
 * new owner, in a cluster). Each row is written only if still running and still in scope, so
 * two instances looking at once settle a run once.
 */
export async function settleInterrupted(
  ctx: CareContext,
  scope: (q: Knex.QueryBuilder, table: string) => Knex.QueryBuilder,
  cause: string,
  now: string,
  extra: Record<string, string> = {},
): Promise<InterruptedRuns> {
  const out: InterruptedRuns = { failed: [], reparked: [] };
  const ids: Array<{ id: number | string }> = await scope(whereStatus(ctx.db("workflow_executions as we"), ["running"], "we"), "we")
    .orderBy("we.id")
    .select("we.id");
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK).map((r) => Number(r.id));
    const rows: Array<Record<string, unknown>> = await selectExecutions(ctx.db).whereIn("we.id", chunk);
    for (const raw of rows) {
      const row = parseRow(raw);
      const ending = row.waiting.length === 0;
      const { records, interrupted } = await interruptedSteps(ctx, row, cause);
      const labels = interrupted.map((r) => `'${r.label}'`).join(", ");
      const columns: Record<string, string | null> = {
        step_records: encodeStepRecords(records, row.graph, Date.parse(row.started_at)),
        updated_at: now,
        ...extra,
      };
      if (ending) {
        const reason = interrupted.length ? `interrupted by ${cause} during ${labels}` : `interrupted by ${cause} ${whereItWas(row)}`;
        Object.assign(columns, {
          status: "failed",
          log_status: "failed",
          error: reason,
          errors: toJsonText([...row.errors, reason]),
          skipped_nodes: toJsonText(row.graph.steps.filter((s) => !records.some((r) => r.step_id === s.id)).map((s) => s.id)),
          completed_at: now,
        });
      } else {
        // The parked branch goes on; the one that was running is over, and says so.
        Object.assign(columns, {
          status: "waiting",
          errors: toJsonText([...row.errors, ...interrupted.map((r) => `step '${r.label}' interrupted by ${cause}`)]),
        });
      }
      const n = await scope(whereStatus(ctx.db("workflow_executions"), ["running"]), "")
        .where({ id: row.id })
        .update(columns);
      if (Number(n) !== 1) continue;
      if (ending) out.failed.push(row.id);
      else out.reparked.push({ id: row.id, resume_at: row.resume_at });
    }
  }
  return out;
}

/** The run's records with its steps under way turned into interrupted ones, and those. */
async function interruptedSteps(ctx: CareContext, row: ExecutionRow, cause: string): Promise<{ records: StepRecord[]; interrupted: StepRecord[] }> {
  const interrupted: StepRecord[] = [];
  const records: StepRecord[] = [];
  for (const rec of row.step_records) {
    if (rec.status !== "running") {
      records.push(rec);
      continue;
    }
    // The activation the kill cut short: the step's finished records, and any of it under way before this one.
    const activation = records.filter((r) => r.step_id === rec.step_id).length;
    const findings = await stepFindings(ctx, row.id, stepById(row.graph, rec.step_id), rec, activation).catch((err: unknown) => {
      ctx.log.warn({ err, execution_id: row.id, step: rec.label }, "what an interrupted step had done could not be read");
      return { done: ["what it had done before the restart could not be read"] };
    });
    const out = interruptedRecord(rec, findings, cause);
    records.push(out);
    interrupted.push(out);
  }
  return { records, interrupted };
}

/** Where a run was when no step of it was under way: between steps (a flow step, a message on its way). */
function whereItWas(row: ExecutionRow): string {
  const last = row.step_records[row.step_records.length - 1];
  return last ? `after '${last.label}'` : "before its first step";
}
