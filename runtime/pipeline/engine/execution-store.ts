/**
 * Executions in the store. Progress is written by group commit: changed runs are collected
 * and written together on the next tick, in one transaction. Transitions a restart must
 * not lose (a run parks, a run ends) are awaited.
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../db/json-column";
import type { TriggerContext } from "../../../nodes/_kit/handler-types";
import type { GraphSnapshot } from "./graph-snapshot";
import type { ExecutionStatus, RunState, StepRecord, Waiting } from "./run-state";

export interface ExecutionRow {
  id: number;
  rule_id: number;
  rule_name: string;
  status: ExecutionStatus;
  trigger_type: string;
  trigger_context: TriggerContext;
  graph: GraphSnapshot;
  pipeline_data: Record<string, unknown>;
  step_records: StepRecord[];
  activated_ports: string[];
  skipped_nodes: number[];
  errors: string[];
  resume_at: string | null;
  waiting: Waiting[];
  rerun_of: number | null;
  event_log_id: number | null;
  error: string | null;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
}

type RawRow = Record<string, unknown>;

export function parseRow(r: RawRow): ExecutionRow {
  return {
    id: Number(r.id),
    rule_id: Number(r.rule_id),
    rule_name: String(r.rule_name),
    status: r.status as ExecutionStatus,
    trigger_type: String(r.trigger_type),
    trigger_context: fromJsonText(r.trigger_context as string, {} as TriggerContext),
    graph: fromJsonText(r.graph as string, {} as GraphSnapshot),
    pipeline_data: fromJsonText(r.pipeline_data as string, {}),
    step_records: fromJsonText(r.step_records as string, []),
    activated_ports: fromJsonText(r.activated_ports as string, []),
    skipped_nodes: fromJsonText(r.skipped_nodes as string, []),
    errors: fromJsonText(r.errors as string, []),
    resume_at: (r.resume_at as string | null) ?? null,
    waiting: fromJsonText(r.waiting as string | null, []),
    rerun_of: r.rerun_of === null || r.rerun_of === undefined ? null : Number(r.rerun_of),
    event_log_id: r.event_log_id === null || r.event_log_id === undefined ? null : Number(r.event_log_id),
    error: (r.error as string | null) ?? null,
    started_at: String(r.started_at),
    updated_at: String(r.updated_at),
    completed_at: (r.completed_at as string | null) ?? null,
  };
}

/** The earliest resume time among parked branches, or null. */
const resumeAt = (s: RunState): string | null =>
  s.waiting.map((w) => w.resume_at).filter((t): t is string => t !== null).sort()[0] ?? null;

function columns(s: RunState, now: string): RawRow {
  const ended = s.status === "completed" || s.status === "failed" || s.status === "cancelled";
  const executed = new Set(s.steps.map((r) => r.step_id));
  return {
    status: s.status,
    pipeline_data: toJsonText(s.pipeline_data),
    step_records: toJsonText(s.steps),
    activated_ports: toJsonText(s.activated_ports),
    skipped_nodes: toJsonText(ended ? s.graph.steps.filter((st) => !executed.has(st.id)).map((st) => st.id) : []),
    errors: toJsonText(s.errors),
    // Kept while a branch is parked, even before the run itself is `waiting`: recovery reads it.
    resume_at: s.waiting.length && !ended ? resumeAt(s) : null,
    waiting: s.waiting.length ? toJsonText(s.waiting) : null,
    error: s.failed_error,
    updated_at: now,
    completed_at: ended ? now : null,
  };
}

export class ExecutionStore {
  private dirty = new Map<number, RunState>();
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Knex,
    private readonly now: () => string,
  ) {}

  async create(s: Omit<RunState, "id" | "event_log_id">): Promise<{ id: number; event_log_id: number }> {
    return this.db.transaction(async (trx) => {
      const [log] = await trx("event_logs")
        .insert({
          timestamp: s.started_at,
          rule_id: s.rule_id,
          rule_name: s.rule_name,
          room_name: s.trigger.room_name,
          sensor_id: s.trigger.sensor_id,
          status: "processing",
          trigger_type: s.trigger.trigger_type,
          pipeline_data_json: "{}",
        })
        .returning("id");
      const eventLogId = Number(typeof log === "object" ? log.id : log);
      const [row] = await trx("workflow_executions")
        .insert({
          rule_id: s.rule_id,
          rule_name: s.rule_name,
          status: s.status,
          trigger_type: s.trigger.trigger_type,
          trigger_context: toJsonText(s.trigger),
          graph: toJsonText(s.graph),
          pipeline_data: toJsonText(s.pipeline_data),
          rerun_of: s.rerun_of,
          event_log_id: eventLogId,
          started_at: s.started_at,
          updated_at: s.started_at,
        })
        .returning("id");
      const id = Number(typeof row === "object" ? row.id : row);
      await trx("event_logs").where({ id: eventLogId }).update({ execution_id: id });
      return { id, event_log_id: eventLogId };
    });
  }

  /** Queue a run's progress for the next group commit. */
  touch(s: RunState): void {
    this.dirty.set(s.id, s);
    if (!this.flushing) this.flushing = new Promise((resolve) => setImmediate(resolve)).then(() => this.flush());
  }

  /** Write a run now (with whatever else is queued) and resolve when it is durable. */
  async save(s: RunState): Promise<void> {
    this.dirty.set(s.id, s);
    await (this.flushing ?? Promise.resolve());
    await this.flush();
  }

  async flushQueued(): Promise<void> {
    await (this.flushing ?? Promise.resolve());
    await this.flush();
  }

  private async flush(): Promise<void> {
    this.flushing = null;
    if (!this.dirty.size) return;
    const batch = [...this.dirty.values()];
    this.dirty.clear();
    const now = this.now();
    await this.db.transaction(async (trx) => {
      for (const s of batch) {
        await trx("workflow_executions").where({ id: s.id }).update(columns(s, now));
        if (s.event_log_id !== null) {
          await trx("event_logs").where({ id: s.event_log_id }).update({ status: eventLogStatus(s), pipeline_data_json: toJsonText(s.pipeline_data) });
        }
      }
    });
  }

  async get(id: number): Promise<ExecutionRow | undefined> {
    const row = await this.db("workflow_executions").where({ id }).first();
    return row ? parseRow(row) : undefined;
  }

  /** Claim a parked run for resumption; exactly one claimer wins. */
  async claimResume(id: number, expectedResumeAt: string | null): Promise<boolean> {
    const q = this.db("workflow_executions").where({ id, status: "waiting" });
    if (expectedResumeAt !== null) q.where({ resume_at: expectedResumeAt });
    const n = await q.update({ status: "running", updated_at: this.now() });
    return Number(n) === 1;
  }
}

/** The event log follows the run: completed only when a step marked cool-off. */
export function eventLogStatus(s: RunState): string {
  switch (s.status) {
    case "running":
    case "waiting":
      return "processing";
    case "failed":
      return "failed";
    case "cancelled":
      return "ignored";
    case "completed":
      return s.pipeline_data._cooloff_triggered === true ? "completed" : "ignored";
  }
}
