/**
 * What a start finds: runs a stop interrupted are failed visibly (never silently dropped),
 * saying which step the stop cut short and what it had done (interrupted-runs.ts),
 * a run whose branch was already parked durably counts as waiting, and every parked run is
 * handed back to be re-armed. "Parked" is what the store's `waiting` list says: a claim takes
 * the resumed branch off that list in the same write, so a branch that already resumed is
 * never resumed again after a stop (the steps after a wait run once).
 *
 * In a cluster (`owner` set) a start recovers only the runs of its own instance id (an
 * instance restarted under a fixed `cluster.instance_id`): the runs of other instances are
 * theirs while they live, and a survivor's (run-adoption.ts) once they are dead.
 */
import type { Knex } from "knex";
import type { CareContext } from "../../context";
import { isoNow } from "../../../../platform/core/clock";
import { whereStatus } from "./execution-rows";
import { settleInterrupted } from "./interrupted-runs";

export async function recoverRuns(ctx: CareContext, owner: string | null = null): Promise<Array<{ id: number; resume_at: string }>> {
  const now = isoNow(ctx.clock);
  const mine = (q: Knex.QueryBuilder, table: string): Knex.QueryBuilder =>
    owner === null ? q : q.where(table ? `${table}.instance_id` : "instance_id", owner);
  // Each says where the stop caught it: the step under way (and what it had done), or between steps.
  const { failed, reparked } = await settleInterrupted(ctx, mine, "a restart", now);
  if (reparked.length)
    // Such a run had a branch parked and another running; the running one is lost with the stop.
    ctx.log.warn(
      { runs: reparked.map((r) => r.id) },
      "runs with a parked branch were parked again (a branch still running at the stop, if any, was interrupted)",
    );
  if (failed.length) ctx.log.warn({ runs: failed }, "runs interrupted by a stop were marked failed");
  const parked: Array<{ id: number; resume_at: string }> = await mine(whereStatus(ctx.db("workflow_executions"), ["waiting"]), "")
    .whereNotNull("resume_at")
    .select("id", "resume_at");
  if (parked.length) ctx.log.info({ runs: parked.length }, "parked runs re-armed");
  return parked;
}
