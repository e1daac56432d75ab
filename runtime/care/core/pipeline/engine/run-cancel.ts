/**
 * Cancelling a run: one moving here stops at its next step boundary, a parked one stops at
 * once. With several instances a run moving on another instance is asked to stop through
 * the store, and each instance looks for the cancels asked of its runs in a round.
 */
import type { EngineCore } from "./engine-core";
import { reviveRun } from "./run-state";
import { checkSettled, finish } from "./run-settling";

/** False when the run is already over (or not found). */
export async function cancel(core: EngineCore, id: number): Promise<boolean> {
  const run = core.runs.get(id);
  if (run) {
    run.cancel_requested = true;
    run.abort?.abort(new Error("run cancelled"));
    checkSettled(core, run);
    return true;
  }
  // In a cluster the run may be running on, or just parking at, another instance: a few tries.
  for (let attempt = 0; attempt < 3; attempt++) {
    const row = await core.store.get(id);
    if (!row) return false;
    if (row.status === "running" && core.owner !== null) {
      if (await core.store.requestCancel(id)) return true;
      continue;
    }
    if (row.status !== "waiting") return false;
    core.held.drop(id);
    if (!(await core.store.claimResume(id, [], row.updated_at))) {
      if (core.owner !== null) continue;
      return false;
    }
    const revived = reviveRun(row, core.ctx.clock.now());
    revived.waiting = [];
    revived.status = "running";
    await finish(core, revived, "cancelled");
    return true;
  }
  return false;
}

/** Cluster: the runs of this instance cancelled through another instance stop here. */
export async function cancelAskedElsewhere(core: EngineCore): Promise<void> {
  try {
    for (const id of await core.store.cancelRequests()) await cancel(core, id);
  } catch (err) {
    core.ctx.log.warn({ err }, "looking for cancels asked through other instances failed (tried again shortly)");
  }
}
