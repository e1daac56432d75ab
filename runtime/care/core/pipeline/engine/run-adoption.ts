/**
 * The runs of dead instances (cluster only; docs/cluster.md, docs/decisions.md "Runs belong to
 * the instance that runs them"). Every unfinished run names its instance (`instance_id`). The
 * holder of the `runs-recovery` lease looks, every third of `lease_seconds`, for unfinished runs
 * whose instance is not alive (its heartbeat ran out, or it stopped and left the list) and
 * takes them over as a start recovers its own: a run that was running is failed visibly (one
 * with a parked branch is parked again), a parked run's timeout is armed here. Each takeover is
 * one conditional update, so a run is taken over once even if two instances looked at once.
 */
import type { Knex } from "knex";
import type { CareContext } from "../../context";
import { isoNow } from "../../../../platform/core/clock";
import { leasesOf } from "../../../../platform/cluster/cluster";
import { whileHolding } from "../../../../platform/cluster/leases";
import { everyPeriod } from "./clock-rounds";
import { whereStatus } from "./execution-rows";
import { settleInterrupted } from "./interrupted-runs";

export const RUNS_RECOVERY_LEASE = "runs-recovery";

export interface Parked {
  id: number;
  resume_at: string;
}

/** Takes over the unfinished runs of instances not in `alive`; returns the parked runs to arm. */
export async function adoptOrphans(ctx: CareContext, me: string, alive: readonly string[]): Promise<Parked[]> {
  const now = isoNow(ctx.clock);
  const live = [...new Set([me, ...alive])];
  const orphan = (q: Knex.QueryBuilder, table: string): Knex.QueryBuilder => {
    const col = table ? `${table}.instance_id` : "instance_id";
    return q.where((w) => w.whereNull(col).orWhereNotIn(col, live));
  };
  // Each run is taken over by one conditional write, with the step the stop cut short and what it had done.
  const { failed, reparked } = await settleInterrupted(ctx, orphan, "the stop of the instance running it", now, { instance_id: me });
  if (reparked.length)
    ctx.log.warn(
      { runs: reparked.map((r) => r.id) },
      "runs of a stopped instance with a parked branch were parked again here (a branch still running there was interrupted)",
    );
  if (failed.length) ctx.log.warn({ runs: failed }, "runs interrupted by the stop of their instance were marked failed");
  const parked: Array<{ id: number; resume_at: string | null }> = await orphan(whereStatus(ctx.db("workflow_executions"), ["waiting"]), "")
    .update({ instance_id: me })
    .returning(["id", "resume_at"]);
  if (parked.length) ctx.log.info({ runs: parked.length }, "parked runs of a stopped instance taken over");
  return [...reparked, ...parked].filter((r): r is Parked => r.resume_at !== null).map((r) => ({ id: Number(r.id), resume_at: r.resume_at }));
}

/**
 * While this instance holds the `runs-recovery` lease, takes over the runs of dead instances
 * (at once on taking the lease, then every `periodMs`) and hands their parked ones to `arm`.
 * Returns the stop (it waits for a round under way).
 */
export function startRunAdoption(ctx: CareContext, me: string, periodMs: number, arm: (runs: Parked[]) => void): () => Promise<void> {
  return whileHolding(leasesOf(ctx), RUNS_RECOVERY_LEASE, () =>
    everyPeriod(ctx.clock, periodMs, async () => {
      try {
        const status = await ctx.cluster!.status();
        const parked = await adoptOrphans(
          ctx,
          me,
          status.instances.filter((i) => i.alive).map((i) => i.instance_id),
        );
        if (parked.length) arm(parked);
      } catch (err) {
        ctx.log.warn({ err }, "taking over the runs of stopped instances failed (tried again shortly)");
      }
    }),
  );
}
