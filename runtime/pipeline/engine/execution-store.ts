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

const PROGRESS_DELAY_MS = 25;

/**
 * One process writes executions (the engine), so their ids and their event logs' ids are
 * handed out here and rows are inserted in batches, instead of a round trip per run.
 */
export class ExecutionStore {
  private dirty = new Map<number, RunState>();
  private unsaved = new Set<number>();
  private flushing: Promise<void> | null = null;
  private nextId = 1;
  private nextLogId = 1;
  private progressTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Knex,
    private readonly now: () => string,
  ) {}

  private isPostgres(): boolean {
    return (this.db.client as { config: { client: string } }).config.client === "pg";
  }

  async init(): Promise<void> {
    const [{ m: maxRun }] = await this.db("workflow_executions").max({ m: "id" });
    const [{ m: maxLog }] = await this.db("event_logs").max({ m: "id" });
    this.nextId = Number(maxRun ?? 0) + 1;
    this.nextLogId = Number(maxLog ?? 0) + 1;
  }

  /** Give a new run its ids and queue its rows; resolves when they are written (group commit). */
  async create(s: Omit<RunState, "id" | "event_log_id">): Promise<{ id: number; event_log_id: number }> {
    const ids = { id: this.nextId++, event_log_id: this.nextLogId++ };
    const run = { ...s, ...ids } as RunState;
    this.unsaved.add(run.id);
    await this.save(run);
    return ids;
  }

  /**
   * Queue a run's progress. Progress mid-run is written within PROGRESS_DELAY_MS, batched
   * with everything else: a run lost in a crash fails on restart anyway, while creation,
   * parking and endings (`save`) are written on the next tick and awaited.
   */
  touch(s: RunState): void {
    this.dirty.set(s.id, s);
    if (!this.flushing && !this.progressTimer) {
      this.progressTimer = setTimeout(() => {
        this.progressTimer = undefined;
        void this.schedule();
      }, PROGRESS_DELAY_MS);
      this.progressTimer.unref?.();
    }
  }

  /** Write a run now (with whatever else is queued) and resolve when it is durable. */
  async save(s: RunState): Promise<void> {
    this.dirty.set(s.id, s);
    // A flush already under way took its batch before this run was queued: wait for the next.
    do await this.schedule();
    while (this.dirty.has(s.id));
  }

  async flushQueued(): Promise<void> {
    while (this.flushing || this.dirty.size) await (this.flushing ?? this.schedule());
  }

  private schedule(): Promise<void> {
    if (this.progressTimer) {
      clearTimeout(this.progressTimer);
      this.progressTimer = undefined;
    }
    if (!this.flushing) {
      this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flush()).finally(() => {
        this.flushing = null;
        if (this.dirty.size) void this.schedule();
      });
    }
    return this.flushing;
  }

  private async flush(): Promise<void> {
    if (!this.dirty.size) return;
    const batch = [...this.dirty.values()];
    this.dirty.clear();
    const fresh = batch.filter((s) => this.unsaved.has(s.id));
    fresh.forEach((s) => this.unsaved.delete(s.id));
    const now = this.now();
    // One multi-row upsert per table for the whole batch: with a single SQLite connection,
    // statements (not rows) are what a busy engine waits for.
    await this.db.transaction(async (trx) => {
      for (let i = 0; i < batch.length; i += 100) {
        const chunk = batch.slice(i, i + 100);
        await trx("event_logs").insert(chunk.map(eventLogRow)).onConflict("id").merge(["status", "pipeline_data_json"]);
        await trx("workflow_executions")
          .insert(chunk.map((s) => ({ ...insertColumns(s), ...columns(s, now) })))
          .onConflict("id")
          .merge(MUTABLE_COLUMNS);
      }
      if (fresh.length && this.isPostgres()) {
        // Explicit ids do not move a serial's sequence; keep it ahead for any other writer.
        for (const table of ["event_logs", "workflow_executions"]) {
          await trx.raw(`select setval(pg_get_serial_sequence('${table}', 'id'), (select max(id) from ${table}))`);
        }
      }
    });
  }

  async get(id: number): Promise<ExecutionRow | undefined> {
    const row = await this.db("workflow_executions").where({ id }).first();
    return row ? parseRow(row) : undefined;
  }

  /** Claim a parked run for resumption; exactly one claimer wins. */
  /**
   * Claim many parked runs at once (those whose timers fell due together): one statement,
   * each run only if it is still waiting for that very resume time. Returns the claimed rows.
   */
  async claimDue(due: ReadonlyArray<{ id: number; resume_at: string }>): Promise<ExecutionRow[]> {
    const claimed: ExecutionRow[] = [];
    for (let i = 0; i < due.length; i += 200) {
      const chunk = due.slice(i, i + 200);
      const rows = await this.db("workflow_executions")
        .where({ status: "waiting" })
        .whereIn(["id", "resume_at"], chunk.map((d) => [d.id, d.resume_at]))
        .update({ status: "running", updated_at: this.now() })
        .returning("*");
      claimed.push(...(rows as RawRow[]).map(parseRow));
    }
    return claimed;
  }

  async claimResume(id: number, expectedResumeAt: string | null): Promise<boolean> {
    const q = this.db("workflow_executions").where({ id, status: "waiting" });
    if (expectedResumeAt !== null) q.where({ resume_at: expectedResumeAt });
    const n = await q.update({ status: "running", updated_at: this.now() });
    return Number(n) === 1;
  }
}

const MUTABLE_COLUMNS = ["status", "pipeline_data", "step_records", "activated_ports", "skipped_nodes", "errors", "resume_at", "waiting", "error", "updated_at", "completed_at"];

/** A run's snapshot and trigger never change; serialize them once, not at every group commit. */
const frozenJson = new WeakMap<object, string>();
const once = (v: object): string => {
  let text = frozenJson.get(v);
  if (text === undefined) frozenJson.set(v, (text = toJsonText(v)));
  return text;
};

function insertColumns(s: RunState): RawRow {
  return {
    id: s.id,
    rule_id: s.rule_id,
    rule_name: s.rule_name,
    trigger_type: s.trigger.trigger_type,
    trigger_context: once(s.trigger),
    graph: once(s.graph),
    rerun_of: s.rerun_of,
    event_log_id: s.event_log_id,
    started_at: s.started_at,
  };
}

const eventLogRow = (s: RunState): RawRow => ({
  id: s.event_log_id,
  timestamp: s.started_at,
  rule_id: s.rule_id,
  rule_name: s.rule_name,
  room_name: s.trigger.room_name,
  sensor_id: s.trigger.sensor_id,
  status: eventLogStatus(s),
  trigger_type: s.trigger.trigger_type,
  execution_id: s.id,
  pipeline_data_json: toJsonText(s.pipeline_data),
});

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
