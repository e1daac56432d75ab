/**
 * A run's whole-run timeout: its budget counts only the time it is running, not parked, so it
 * is re-armed each time the run starts or resumes. At the deadline the run fails and its
 * steps under way are told to stop.
 */
import type { EngineCore } from "./engine-core";
import type { RunState } from "./run-state";
import { fail, settle } from "./run-settling";

export function armRunTimeout(core: EngineCore, run: RunState): void {
  const budget = run.graph.trigger.execution_timeout_minutes * 60_000 - run.active_ms;
  run.running_since = core.ctx.clock.now();
  core.deadlines.set(run.id, run.running_since + Math.max(0, budget));
}

export function runTimedOut(core: EngineCore, id: number): void {
  const run = core.runs.get(id);
  if (!run || run.status !== "running") return;
  fail(run, `the run exceeded its ${run.graph.trigger.execution_timeout_minutes}-minute timeout`);
  run.abort?.abort(new Error("run timed out"));
  run.pending = 0;
  void settle(core, run);
}
