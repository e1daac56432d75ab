/**
 * When a run is over. Node-RED's delivery and completion hooks count a run's messages in
 * flight; when none is left the run settles: it parks (a branch waits) or ends, completed,
 * failed or cancelled. Counting through the hooks rather than the steps sees the messages
 * between plain Node-RED nodes too.
 */
import type { RedHookEvent } from "../../../../platform/nodered/red";
import { emit, runOf, type EngineCore } from "./engine-core";
import type { PipelineEventType } from "./live-events";
import type { RunState } from "./run-state";

/** preDeliver: a message of a run reaches a node. */
export function onDeliver(core: EngineCore, e: RedHookEvent): boolean | void {
  const id = runOf(e.msg);
  if (id === undefined) return;
  const run = core.runs.get(id);
  if (!run) return;
  // A message of a run being cancelled, or already ended, goes no further.
  if (run.cancel_requested || run.status !== "running") return false;
  run.pending++;
}

/** onComplete: a node is done with a message of a run. */
export function onComplete(core: EngineCore, e: RedHookEvent): void {
  const id = runOf(e.msg);
  if (id === undefined) return;
  const run = core.runs.get(id);
  if (!run) return;
  run.pending--;
  checkSettled(core, run);
}

export function checkSettled(core: EngineCore, run: RunState): void {
  if (run.pending > 0) return;
  // Deliveries are scheduled on the next tick; look again once they have been counted.
  setImmediate(() => {
    if (run.pending === 0) void settle(core, run);
  });
}

/** Nothing of the run is moving: it parks (waiting) or ends. */
export async function settle(core: EngineCore, run: RunState): Promise<void> {
  if (run.status !== "running" || run.pending > 0) return;
  if (run.cancel_requested) return finish(core, run, "cancelled");
  if (run.failed_error) return finish(core, run, "failed");
  if (run.waiting.length) {
    run.status = "waiting";
    run.active_ms += core.ctx.clock.now() - run.running_since;
    core.deadlines.clear(run.id);
    await core.store.save(run).catch(() => undefined);
    emit(core, run, "pipeline_waiting", "running");
    // One timer per run, at the earliest parked branch (the row's resume_at, which the claim checks).
    const earliest = run.waiting
      .map((w) => w.resume_at)
      .filter((t): t is string => t !== null)
      .sort()[0];
    if (earliest) core.held.arm(run.id, earliest);
    core.runs.delete(run.id);
    return;
  }
  return finish(core, run, "completed");
}

export async function finish(core: EngineCore, run: RunState, status: "completed" | "failed" | "cancelled"): Promise<void> {
  const previous = run.status;
  run.status = status;
  // A step still under way when a cancel or the run's timeout ends it keeps no record, as before.
  run.in_flight = [];
  core.deadlines.clear(run.id);
  core.runs.delete(run.id);
  core.parks.ended(run.id);
  // A failed write is logged by the store and retried; the run's end is announced either way.
  await core.store.save(run).catch(() => undefined);
  const type: PipelineEventType = status === "completed" ? "pipeline_completed" : status === "failed" ? "pipeline_failed" : "pipeline_cancelled";
  emit(core, run, type, previous, run.failed_error ? { error: run.failed_error } : {});
}

/** The run will fail when it settles; its first error is the one it fails with. */
export function fail(run: RunState, error: string): void {
  if (!run.failed_error) run.failed_error = error;
  run.errors.push(error);
}

/** Waits (at most `maxMs`) until no running run is `busy`; says in the log which still were. */
export async function waitForRuns(core: EngineCore, busy: (run: RunState) => boolean, maxMs: number, warning: string): Promise<void> {
  const until = Date.now() + maxMs;
  const left = () => [...core.runs.values()].filter((r) => r.status === "running" && busy(r));
  while (left().length && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
  const still = left();
  if (still.length) core.ctx.log.warn({ runs: still.map((r) => r.id) }, warning);
}
