/**
 * Reading runs: executions as the spec's workflow resource and PipelineRunEnvelopes (the
 * detail view is in run-detail.ts). Cancel and rerun go to the engine.
 */
import type { CareContext } from "../../context";
import { ConflictError, NotFoundError, ServiceUnavailableError } from "../../../../platform/core/errors";
import { countStartedBetween, parseRow, selectExecutions, whereStatus, type ExecutionRow } from "../engine/execution-rows";
import type { ExecutionStatus } from "../engine/run-state";
import { z } from "zod";
import { parseInput } from "../../../../platform/core/validation";
import { ruleView } from "../../rules/rule-model";
import { findRule } from "../../rules/rule-read";
import { triggerContext, type RunEngine, type TriggerContext } from "../engine/types";
import { handStartFields } from "./hand-start";

export interface RunFilters {
  rule_id?: number;
  status?: string;
  active?: boolean;
  limit: number;
}

const ENDED = new Set(["completed", "failed", "cancelled"]);

export async function queryRuns(ctx: CareContext, f: RunFilters): Promise<ExecutionRow[]> {
  // Runs are written by group commit; a list shows what is queued too.
  await ctx.engine?.store.flushQueued();
  const q = selectExecutions(ctx.db).orderBy("we.id", "desc").limit(f.limit);
  if (f.rule_id !== undefined) q.where("we.rule_id", f.rule_id);
  if (f.status !== undefined) whereStatus(q, [f.status as ExecutionStatus], "we");
  if (f.active) whereStatus(q, ["running", "waiting"], "we");
  return (await q).map((r: Record<string, unknown>) => parseRow(r));
}

/** How many runs started with `from <= started_at < to`, and how many of them failed (the family's daily message). */
export async function countRunsStartedBetween(ctx: CareContext, from: string, to: string): Promise<{ total: number; failed: number }> {
  await ctx.engine?.store.flushQueued();
  const counts = await countStartedBetween(ctx.db, from, to);
  return { total: [...counts.values()].reduce((sum, n) => sum + n, 0), failed: counts.get("failed") ?? 0 };
}

export async function getRun(ctx: CareContext, id: number): Promise<ExecutionRow> {
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
  ...handStartFields(r),
  pipeline_data: r.pipeline_data,
  step_timings: r.step_records.map((s) => ({
    step_id: s.step_id,
    label: s.label,
    step_type: s.step_type,
    elapsed: s.elapsed_ms / 1000,
    success: s.success,
    status: s.status,
    error: s.error ?? null,
    warning: s.warning ?? null,
    ...(s.receipts ? { receipts: s.receipts } : {}),
    ...(s.done ? { done: s.done } : {}),
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
  ...handStartFields(r),
  steps: r.step_records.map((s) => ({
    step_id: s.step_id,
    label: s.label,
    type: s.step_type,
    status: s.status,
    elapsed_ms: s.elapsed_ms,
    ...(s.warning ? { warning: s.warning } : {}),
  })),
  warnings: runWarnings(r),
});

function engineOf(ctx: CareContext): RunEngine {
  if (!ctx.engine) throw new ServiceUnavailableError("The pipeline engine is not running (Node-RED is not embedded in this process)");
  return ctx.engine;
}

export async function cancelRun(ctx: CareContext, id: number) {
  const row = await getRun(ctx, id);
  if (ENDED.has(row.status)) throw new ConflictError(`Execution ${id} is already ${row.status}; only running or waiting runs can be cancelled`);
  if (!(await engineOf(ctx).cancel(id))) throw new ConflictError(`Execution ${id} ended before it could be cancelled`);
  await waitForStatus(ctx, id, ["cancelled", "completed", "failed"], 2000);
  return workflowView(await getRun(ctx, id));
}

/** A cancel is honoured at the next step boundary; give a run in a quick step a moment. */
async function waitForStatus(ctx: CareContext, id: number, statuses: string[], maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    if (statuses.includes((await getRun(ctx, id)).status)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function rerunRun(ctx: CareContext, id: number): Promise<{ execution_id: number }> {
  await getRun(ctx, id);
  const engine = engineOf(ctx);
  const execution_id = await engine.rerun(id);
  await engine.store.whenWritten(execution_id).catch(() => undefined);
  return { execution_id };
}

/**
 * A manual run is the caregiver's explicit choice: filters, cool-off and limits do not hold it.
 * `startedBy` (the key's name) is kept with the run, so its lists say who started it.
 */
export const executeRule = (ctx: CareContext, ruleId: number, startedBy?: string): Promise<{ execution_id: number }> =>
  startRun(ctx, ruleId, triggerContext({ trigger_type: "manual", by_hand: true, ...(startedBy ? { started_by: startedBy } : {}) }));

/**
 * A sample trigger to try a rule with ("Run now" in the editor): what the rule's own kind of
 * trigger would carry. Media paths are not taken: a sample must not point a model step at
 * files of its choosing.
 */
export const sampleTriggerSchema = z
  .object({
    sensor_id: z.string().min(1).max(200).nullable().default(null),
    room_name: z.string().min(1).max(200).nullable().default(null),
    webhook_payload: z.record(z.string(), z.unknown()).nullable().default(null),
    occupancy_duration_minutes: z.number().min(0).max(525_600).nullable().default(null),
  })
  .strict();

/**
 * Runs the rule of an editor tab now with a sample trigger of the rule's own trigger type,
 * past its gates, as a manual execute does.
 */
export async function tryRuleOfTab(ctx: CareContext, tabId: string, sample: unknown, startedBy?: string): Promise<{ execution_id: number; rule_id: number }> {
  const parsed = parseInput(sampleTriggerSchema, sample ?? {});
  const { flows, index } = await ctx.flows.snapshot();
  const row = index.rules.find((r) => r.tab_id === tabId);
  if (!row) throw new NotFoundError("This tab has no deployed rule: deploy it first, then run it");
  const rule = ruleView(findRule(flows, index, row.id), false);
  // Where a live run has its payload as trigger_input too, the sample's does (a template reads it there).
  const input = PAYLOAD_IS_INPUT.has(rule.trigger_type) && parsed.webhook_payload ? structuredClone(parsed.webhook_payload) : null;
  const started = await startRun(
    ctx,
    row.id,
    triggerContext({ ...parsed, trigger_type: rule.trigger_type, by_hand: true, ...(startedBy ? { started_by: startedBy } : {}) }),
    input,
  );
  return { ...started, rule_id: row.id };
}

const PAYLOAD_IS_INPUT = new Set(["webhook", "chat_app", "system_health"]);

async function startRun(
  ctx: CareContext,
  ruleId: number,
  trigger: TriggerContext,
  input: Record<string, unknown> | null = null,
): Promise<{ execution_id: number }> {
  const result = await engineOf(ctx).fire({ rule_id: ruleId, trigger, trigger_input: input, skip_gates: true });
  if (result.execution_id === null) throw new ConflictError(`Rule ${ruleId} did not run: ${result.reason}`);
  // The caller will look the run up: answer once its row exists.
  await engineOf(ctx)
    .store.whenWritten(result.execution_id)
    .catch(() => undefined);
  return { execution_id: result.execution_id };
}
