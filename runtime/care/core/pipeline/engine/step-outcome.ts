/**
 * What a step's outcome does to its run: the step's record, its data merged into
 * pipeline_data, and the message sent on the ports it chose, or its branch parked when it
 * waits. Sends go through the live node of the same id, since a deploy may have replaced
 * the instance the message came in on.
 */
import type { StepResult } from "../../../../../nodes/_kit/handler-types";
import type { RedMessage, RedNodeInstance } from "../../../../../nodes/_kit/node-red/red-api";
import type { StepSpec } from "../../../../../nodes/_kit/types";
import { emit, type EngineCore, type LiveNode, type Send } from "./engine-core";
import type { SnapshotStep } from "./graph-snapshot";
import { readableTrace, stepRecord, type RunState, type StepRecord, type Waiting } from "./run-state";
import { fail } from "./run-settling";
import type { StepOutcome } from "./step-runner";

/**
 * The ports a step chose that it has. Usually all are, and the handler's own (fresh) list is
 * kept as the step's record rather than copied.
 */
function knownPorts(chosen: readonly string[], has: readonly string[]): string[] {
  for (const p of chosen) if (!has.includes(p)) return chosen.filter((c) => has.includes(c));
  return chosen as string[];
}

export function afterStep(
  core: EngineCore,
  run: RunState,
  node: RedNodeInstance,
  spec: StepSpec,
  step: SnapshotStep,
  startedAt: string,
  outcome: StepOutcome,
  msg: RedMessage,
  send: Send,
): Promise<void> | void {
  if (run.cancel_requested || run.status !== "running") return;
  const defaultPort = spec.outputPorts.includes("main") ? "main" : spec.outputPorts[0];
  if (outcome.kind === "threw") {
    record(core, run, step, startedAt, outcome.elapsed_ms, false, [], outcome.error);
    fail(run, `step '${step.label}' failed: ${outcome.error}`);
    return;
  }
  if (outcome.kind === "timeout") {
    // A timed-out step is failed, and the run goes on.
    record(core, run, step, startedAt, outcome.elapsed_ms, false, [defaultPort], outcome.error);
    run.errors.push(`step '${step.label}' ${outcome.error}`);
    return sendOn(core, run, node, spec.outputPorts, [defaultPort], msg, send);
  }
  const r = outcome.result;
  if (r.data) Object.assign(run.pipeline_data, r.data);
  const ports = r.output_ports ? knownPorts(r.output_ports, spec.outputPorts) : [defaultPort];
  const ok = r.success !== false;
  if (!ok) run.errors.push(`step '${step.label}': ${r.error ?? "reported failure"}`);
  if (r.wait_until !== undefined) {
    const waiting: Waiting = {
      node_id: node.id,
      step_id: step.id,
      ports,
      resume_at: new Date(r.wait_until).toISOString(),
      ...(r.on_timeout_data ? { on_timeout_data: r.on_timeout_data } : {}),
    };
    run.waiting.push(waiting);
    record(core, run, step, startedAt, outcome.elapsed_ms, ok, [], r.error, "waiting");
    core.parks.parked(run.id, step.id);
    // The branch counts as in flight until its parking is durable.
    return core.store.save(run).catch(() => undefined);
  }
  record(core, run, step, startedAt, outcome.elapsed_ms, ok, r.should_continue === false ? [] : ports, r.error, undefined, r);
  if (r.should_continue === false) return;
  return sendOn(core, run, node, spec.outputPorts, ports, msg, send);
}

export function record(
  core: EngineCore,
  run: RunState,
  step: { id: number; label: string; step_type: string },
  startedAt: string,
  elapsed: number,
  success: boolean,
  ports: string[],
  error?: string,
  status?: StepRecord["status"],
  notice?: Pick<StepResult, "warning" | "receipts" | "trace">,
): void {
  const rec = stepRecord(step, startedAt, elapsed, success, ports, error, status);
  if (notice?.warning) rec.warning = notice.warning;
  if (notice?.receipts)
    rec.receipts = notice.receipts.map((r) => ({
      channel: r.channel,
      delivered: r.delivered,
      ...(r.detail ? { detail: r.detail } : {}),
      ...(r.fallback ? { fallback: true } : {}),
    }));
  if (notice?.trace) rec.trace = readableTrace(notice.trace);
  run.steps.push(rec);
  for (const p of ports) run.activated_ports.push(`${step.id}:${p}`);
  core.store.touch(run);
  if (rec.warning && !run.warning_logged) {
    run.warning_logged = true;
    core.ctx.log.warn({ execution_id: run.id, rule: run.rule_name, step: step.label, warning: rec.warning }, "run needs a look");
  }
  emit(core, run, "step_completed", null, {
    step_id: step.id,
    step_label: step.label,
    step_type: step.step_type,
    elapsed_ms: rec.elapsed_ms,
    output_port: ports[0] ?? null,
    ...(error ? { error } : {}),
    ...(rec.warning ? { warning: rec.warning } : {}),
    ...(rec.receipts ? { receipts: rec.receipts } : {}),
  });
}

/** Send on the given ports from the live instance of the node (a deploy may have replaced it). */
function sendOn(
  core: EngineCore,
  run: RunState,
  node: RedNodeInstance,
  allPorts: readonly string[],
  ports: readonly string[],
  msg: RedMessage,
  send: (m: Array<RedMessage | null>) => void,
): Promise<void> | void {
  // The message goes on as it came (its id too); a second port gets a message of its own.
  const out: Array<RedMessage | null> = new Array(allPorts.length).fill(null);
  let sent = 0;
  for (let i = 0; i < allPorts.length; i++) {
    if (!ports.includes(allPorts[i])) continue;
    out[i] = sent++ === 0 ? msg : { _msgid: msg._msgid, _careflow: msg._careflow };
  }
  if (!sent) return;
  const live = core.red.getNode<LiveNode>(node.id);
  if (live === node) return send(out);
  if (live) return live.send(out);
  // A step that ends in the middle of a deploy finds its node away: it sends from the new one once the flows run.
  return core.red.flowsRunning().then(() => {
    if (run.status !== "running" || run.cancel_requested) return;
    const again = core.red.getNode<LiveNode>(node.id);
    if (!again) return fail(run, `step node ${node.id} was removed by a deploy while the run was at it`);
    again.send(out);
  });
}
