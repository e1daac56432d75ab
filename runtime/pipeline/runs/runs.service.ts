/**
 * Reading runs: executions as the spec's workflow resource, the detail view (snapshot,
 * timeline, ports, skipped steps, errors) and PipelineRunEnvelopes. Cancel and rerun go
 * to the engine.
 */
import { stepSpecByType } from "../../rules/care-types";
import type { AppContext } from "../../context";
import { ConflictError, NotFoundError, ServiceUnavailableError } from "../../core/errors";
import { parseRow, selectExecutions, whereStatus, type ExecutionRow } from "../engine/execution-rows";
import type { ExecutionStatus } from "../engine/run-state";
import type { PipelineEngine } from "../engine/engine";
import { triggerContext } from "../engine/types";

export interface RunFilters {
  rule_id?: number;
  status?: string;
  active?: boolean;
  limit: number;
}

const ENDED = new Set(["completed", "failed", "cancelled"]);

export async function queryRuns(ctx: AppContext, f: RunFilters): Promise<ExecutionRow[]> {
  // Runs are written by group commit; a list shows what is queued too.
  await ctx.engine?.store.flushQueued();
  const q = selectExecutions(ctx.db).orderBy("we.id", "desc").limit(f.limit);
  if (f.rule_id !== undefined) q.where("we.rule_id", f.rule_id);
  if (f.status !== undefined) whereStatus(q, [f.status as ExecutionStatus], "we");
  if (f.active) whereStatus(q, ["running", "waiting"], "we");
  return (await q).map((r: Record<string, unknown>) => parseRow(r));
}

export async function getRun(ctx: AppContext, id: number): Promise<ExecutionRow> {
  await ctx.engine?.store.whenWritten(id).catch(() => undefined);
  const row = await selectExecutions(ctx.db).where("we.id", id).first();
  if (!row) throw new NotFoundError(`Execution ${id} not found`);
  return parseRow(row);
}

export const workflowView = (r: ExecutionRow) => ({
  id: r.id,
  rule_id: r.rule_id,
  rule_name: r.rule_name,
  status: r.status,
  trigger_type: r.trigger_type,
  trigger_context: r.trigger_context,
  pipeline_data: r.pipeline_data,
  step_timings: r.step_records.map((s) => ({
    step_id: s.step_id,
    label: s.label,
    step_type: s.step_type,
    elapsed: s.elapsed_ms / 1000,
    success: s.success,
    error: s.error ?? null,
    warning: s.warning ?? null,
    ...(s.receipts ? { receipts: s.receipts } : {}),
  })),
  warnings: runWarnings(r),
  resume_at: r.resume_at,
  started_at: r.started_at,
  completed_at: r.completed_at,
  error: r.error,
});

/** What a person must look at although the run went on: one line per step that warned. */
export const runWarnings = (r: ExecutionRow): string[] => r.step_records.filter((s) => s.warning).map((s) => `step '${s.label}': ${s.warning}`);

export const envelope = (r: ExecutionRow) => ({
  execution_id: r.id,
  rule_id: r.rule_id,
  rule_name: r.rule_name,
  status: r.status,
  triggered_at: r.started_at,
  trigger_type: r.trigger_type,
  steps: r.step_records.map((s) => ({ step_id: s.step_id, label: s.label, type: s.step_type, status: s.status, elapsed_ms: s.elapsed_ms, ...(s.warning ? { warning: s.warning } : {}) })),
  warnings: runWarnings(r),
});

export function detailView(r: ExecutionRow) {
  const recorded = new Map(r.step_records.map((s) => [s.step_id, s]));
  const timeline = r.graph.steps.map((st) => {
    const rec = recorded.get(st.id);
    return {
      step_id: st.id,
      label: st.label,
      step_type: st.step_type,
      category: stepSpecByType(st.step_type)?.category ?? "flow",
      icon: stepSpecByType(st.step_type)?.palette.icon ?? null,
      status: rec ? rec.status : ENDED.has(r.status) ? "skipped" : "pending",
      started_at: rec?.started_at ?? null,
      elapsed_seconds: rec ? rec.elapsed_ms / 1000 : null,
      output_port: rec?.output_ports[0] ?? null,
      outputs: rec ? outputsOf(st.step_type, r.pipeline_data) : {},
      error: rec?.error ?? null,
      warning: rec?.warning ?? null,
      receipts: rec?.receipts ?? [],
    };
  });
  return {
    id: r.id,
    rule_id: r.rule_id,
    rule_name: r.rule_name,
    status: r.status,
    trigger_type: r.trigger_type,
    trigger_summary: summary(r),
    started_at: r.started_at,
    completed_at: r.completed_at,
    resume_at: r.resume_at,
    graph: r.graph,
    timeline,
    activated_ports: r.activated_ports,
    skipped_nodes: r.skipped_nodes,
    outputs: r.pipeline_data,
    errors: r.errors,
    warnings: runWarnings(r),
    can_cancel: r.status === "running" || r.status === "waiting",
    can_rerun: true,
  };
}

/** The pipeline_data keys a step type declares, as they stand in the run's data. */
function outputsOf(stepType: string, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of stepSpecByType(stepType)?.outputs ?? []) {
    const root = o.key.split(".")[0];
    if (root in data) out[root] = data[root];
  }
  return out;
}

function summary(r: ExecutionRow): string {
  const t = r.trigger_context;
  const where = [t.sensor_id, t.room_name].filter(Boolean).join(" in ");
  return `${r.trigger_type}${where ? ` from ${where}` : ""}`;
}

function engineOf(ctx: AppContext): PipelineEngine {
  if (!ctx.engine) throw new ServiceUnavailableError("The pipeline engine is not running (Node-RED is not embedded in this process)");
  return ctx.engine;
}

export async function cancelRun(ctx: AppContext, id: number) {
  const row = await getRun(ctx, id);
  if (ENDED.has(row.status)) throw new ConflictError(`Execution ${id} is already ${row.status}; only running or waiting runs can be cancelled`);
  if (!(await engineOf(ctx).cancel(id))) throw new ConflictError(`Execution ${id} ended before it could be cancelled`);
  await waitForStatus(ctx, id, ["cancelled", "completed", "failed"], 2000);
  return workflowView(await getRun(ctx, id));
}

/** A cancel is honoured at the next step boundary; give a run in a quick step a moment. */
async function waitForStatus(ctx: AppContext, id: number, statuses: string[], maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    if (statuses.includes((await getRun(ctx, id)).status)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function rerunRun(ctx: AppContext, id: number): Promise<{ execution_id: number }> {
  await getRun(ctx, id);
  const engine = engineOf(ctx);
  const execution_id = await engine.rerun(id);
  await engine.store.whenWritten(execution_id).catch(() => undefined);
  return { execution_id };
}

/** A manual run is the caregiver's explicit choice: filters, cool-off and limits do not hold it. */
export async function executeRule(ctx: AppContext, ruleId: number): Promise<{ execution_id: number }> {
  const result = await engineOf(ctx).fire({ rule_id: ruleId, trigger: triggerContext({ trigger_type: "manual" }), skip_gates: true });
  if (result.execution_id === null) throw new ConflictError(`Rule ${ruleId} did not run: ${result.reason}`);
  // The caller will look the run up: answer once its row exists.
  await engineOf(ctx).store.whenWritten(result.execution_id).catch(() => undefined);
  return { execution_id: result.execution_id };
}
