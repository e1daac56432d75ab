/**
 * A parked branch continuing: at its time (held-runs.ts claims it) or on an answer to the
 * step that parked it (an interactive prompt, say). It continues by sending from the live
 * node of the same id, so a redeploy while it was parked does not lose it.
 */
import { stepSpecOfNode } from "../../rules/care-types";
import { emit, type EngineCore, type LiveNode } from "./engine-core";
import { stepOfNode } from "./graph-snapshot";
import { reviveRun, type RunState, type Waiting } from "./run-state";
import { checkSettled, fail } from "./run-settling";
import { armRunTimeout } from "./run-timeout";

/**
 * The first answer per run and step wins; it is merged into pipeline_data, the step's
 * timeout is cancelled and the run continues at once. Later answers get `already_answered`
 * and change nothing.
 */
export async function answer(
  core: EngineCore,
  id: number,
  stepId: number,
  data: Record<string, unknown>,
): Promise<"resumed" | "already_answered" | "not_waiting"> {
  // The answer may come while the run is still parking this branch (the prompt went out
  // first): the run is in memory then, and the branch continues from here.
  const live = core.runs.get(id);
  if (live && live.status === "running") {
    const parkedHere = live.waiting.find((w) => w.step_id === stepId);
    if (!parkedHere) return live.steps.some((r) => r.step_id === stepId && r.status !== "waiting") ? "already_answered" : "not_waiting";
    Object.assign(live.pipeline_data, data);
    await continueFrom(core, live, [parkedHere]);
    return "resumed";
  }
  const row = await core.store.get(id);
  if (!row) return "not_waiting";
  const parked = row.waiting.find((w) => w.step_id === stepId);
  if (row.status !== "waiting" || !parked) {
    const answered = row.step_records.some((r) => r.step_id === stepId && r.status !== "waiting" && r.status !== "running");
    return answered ? "already_answered" : "not_waiting";
  }
  // Claimed meanwhile (by another answer, or to resume on time): asking again will tell.
  if (
    !(await core.store.claimResume(
      id,
      row.waiting.filter((w) => w !== parked),
      row.updated_at,
    ))
  )
    return "not_waiting";
  core.held.drop(id);
  const run = reviveRun(row, core.ctx.clock.now());
  Object.assign(run.pipeline_data, data);
  return (await continueFrom(core, run, [parked])) ? "resumed" : "not_waiting";
}

/**
 * Resolves once the run parks a branch at this step (true), or at once when it already has;
 * false when the run is not running here or ends first. For answers that arrive while the
 * step that asks is still running.
 */
export function whenParked(core: EngineCore, id: number, stepId: number, timeoutMs: number): Promise<boolean> {
  const live = core.runs.get(id);
  if (!live || live.status !== "running") return Promise.resolve(false);
  if (live.waiting.some((w) => w.step_id === stepId)) return Promise.resolve(true);
  return core.parks.wait(id, stepId, timeoutMs);
}

/** The run (claimed, or still here) goes on from its `due` branches. */
export async function continueFrom(core: EngineCore, run: RunState, due: Waiting[]): Promise<boolean> {
  // A wait that falls due in the middle of a deploy waits for its step to be there again.
  if (due.some((w) => !core.red.getNode(w.node_id))) await core.red.flowsRunning();
  const id = run.id;
  run.waiting = run.waiting.filter((w) => !due.some((d) => d.step_id === w.step_id && d.node_id === w.node_id));
  core.runs.set(id, run);
  armRunTimeout(core, run);
  // Which steps' waits ended, so a listener can tell whether a resume concerns it.
  emit(core, run, "pipeline_resumed", "waiting", {
    resumed_steps: due.map((w) => ({ step_id: w.step_id, step_type: stepOfNode(run.graph, w.node_id)?.step_type ?? null })),
  });
  run.pending++;
  for (const w of due) {
    const node = core.red.getNode<LiveNode>(w.node_id);
    const spec = node ? stepSpecOfNode((node as unknown as { type: string }).type) : undefined;
    if (!node || !spec) {
      fail(run, `the step a wait was parked at (node ${w.node_id}) is no longer in the rule`);
      continue;
    }
    run.activated_ports.push(...w.ports.map((p) => `${w.step_id}:${p}`));
    const record = run.steps.findLast((r) => r.step_id === w.step_id && r.status === "waiting");
    if (record) Object.assign(record, { status: record.success ? "success" : "failed", output_ports: w.ports });
    const out = spec.outputPorts.map((p) => (w.ports.includes(p) ? { _careflow: { execution_id: id } } : null));
    if (out.some(Boolean)) node.send(out);
  }
  run.pending--;
  // The claim already wrote it as running; the next step's record or its end writes the rest.
  checkSettled(core, run);
  return true;
}
