/**
 * A care node's input, run as a step of its run. Every care node hands its input here (see
 * nodes/_kit/node-red/module.ts); the step's handler runs with the step timeout and the run's
 * abort signal, and its outcome goes to step-outcome.ts. A step that acts on the world runs
 * only once its run's row says it is under way, so a crash leaves it visible.
 */
import type { StepHandler } from "../../../../../nodes/_kit/handler-types";
import type { RedMessage, RedNodeConfig, RedNodeInstance } from "../../../../../nodes/_kit/node-red/red-api";
import type { StepSpec } from "../../../../../nodes/_kit/types";
import { registry } from "../../../../../nodes/registry.generated";
import { isoNow } from "../../../../platform/core/clock";
import { stepSpecOfNode } from "../../rules/care-types";
import { emit, runOf, type EngineCore, type Send } from "./engine-core";
import { stepOfNode, type SnapshotStep } from "./graph-snapshot";
import { stepRecord, type RunState, type StepRecord } from "./run-state";
import { fail } from "./run-settling";
import { afterStep, record } from "./step-outcome";
import { runStep } from "./step-runner";

type StepEntry = { spec: StepSpec; handler?: unknown };
const entries = new Map<StepSpec, StepEntry>((registry.steps as readonly StepEntry[]).map((e) => [e.spec, e]));
const handlerOf = (spec: StepSpec) => entries.get(spec)?.handler as StepHandler<Record<string, unknown>> | undefined;

/** Aborted when the run is cancelled or times out; made when a handler first asks for it. */
function runSignal(run: RunState): AbortSignal {
  if (!run.abort) {
    run.abort = new AbortController();
    if (run.cancel_requested || run.failed_error) run.abort.abort(new Error("the run is ending"));
  }
  return run.abort.signal;
}

/**
 * A step whose handler settles at once (flow steps: conditions, waits) is handled within
 * this call; anything else continues asynchronously and tells Node-RED it is done when it is.
 */
export function onInput(core: EngineCore, node: RedNodeInstance, config: RedNodeConfig, msg: RedMessage, send: Send, done: (err?: Error) => void): void {
  const id = runOf(msg);
  const run = id === undefined ? undefined : core.runs.get(id);
  if (!run) return done();
  const spec = stepSpecOfNode(config.type);
  if (!spec) {
    // Filters were evaluated before the run began; in the flow they only pass the message on.
    send(msg);
    return done();
  }
  const pending = execute(core, run, node, config, spec, msg, send);
  if (!pending) return done();
  run.in_handler++;
  void pending.finally(() => {
    run.in_handler--;
    done();
  });
}

/** Runs one step; returns a promise only when it did not finish at once. */
function execute(
  core: EngineCore,
  run: RunState,
  node: RedNodeInstance,
  config: RedNodeConfig,
  spec: StepSpec,
  msg: RedMessage,
  send: Send,
): Promise<void> | void {
  if (run.cancel_requested || run.failed_error) return;
  const step = stepOfNode(run.graph, node.id) ?? {
    id: 0,
    node_id: node.id,
    label: String(config.name ?? spec.type),
    step_type: spec.type,
    config: config.config ?? {},
    enabled: true,
    order: 0,
  };
  // A step that acts on the world (or asks something outside) runs only once the run's row
  // is durable with this step marked under way, so a crash from then on leaves the run
  // visible as interrupted during this step, never gone (recovery.ts).
  if (spec.category !== "flow") {
    const marker = stepRecord(step, isoNow(core.ctx.clock), 0, false, [], undefined, "running");
    run.in_flight.push(marker);
    core.store.touch(run);
    return core.store
      .whenWritten(run.id)
      .catch(() => undefined)
      .then(() => {
        if (!run.cancel_requested && run.status === "running") return runHandler(core, run, node, spec, step, msg, send, marker);
        landed(run, marker);
      });
  }
  return runHandler(core, run, node, spec, step, msg, send);
}

/** A step under way has its own record now (or will never have one): its marker goes. */
function landed(run: RunState, marker: StepRecord | undefined): void {
  if (!marker) return;
  const at = run.in_flight.indexOf(marker);
  if (at >= 0) run.in_flight.splice(at, 1);
}

function runHandler(
  core: EngineCore,
  run: RunState,
  node: RedNodeInstance,
  spec: StepSpec,
  step: SnapshotStep,
  msg: RedMessage,
  send: Send,
  marker?: StepRecord,
): Promise<void> | void {
  const startedAt = isoNow(core.ctx.clock);
  emit(core, run, "step_started", null, { step_id: step.id, step_label: step.label, step_type: step.step_type });
  const handler = handlerOf(spec);
  if (!handler) {
    landed(run, marker);
    record(core, run, step, startedAt, 0, false, [], `${spec.type} cannot run yet: it needs ${spec.pending ?? "a handler"}`);
    fail(run, `step '${step.label}': ${spec.type} cannot run yet: it needs ${spec.pending ?? "a handler"}`);
    return;
  }
  const activation = run.steps.reduce((n, r) => (r.step_id === step.id ? n + 1 : n), 0);
  const input = {
    pipeline_data: run.pipeline_data,
    trigger: run.trigger,
    step: { id: step.id, label: step.label, step_type: step.step_type },
    execution_id: run.id,
    rule_id: run.rule_id,
    idempotency_key: `${run.id}:${step.id}:${activation}`,
  };
  const ctx = core.ctx;
  const outcome = runStep(ctx, core.services, handler, input, step.config, ctx.settings.pipeline.step_timeout_seconds * 1000, () => runSignal(run));
  if (outcome instanceof Promise)
    return outcome.then((o) => {
      landed(run, marker);
      return afterStep(core, run, node, spec, step, startedAt, o, msg, send);
    });
  landed(run, marker);
  return afterStep(core, run, node, spec, step, startedAt, outcome, msg, send);
}
