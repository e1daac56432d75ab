/**
 * A run as a row of workflow_executions (its event log is a view of the same row), as column
 * values in a fixed order, so that one list of columns serves both writers (prepared
 * statements on SQLite, multi-row statements on PostgreSQL); and reading runs back.
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";
import type { TriggerContext } from "../../../../../nodes/_kit/handler-types";
import type { GraphSnapshot } from "./graph-snapshot";
import type { ExecutionStatus, RunState, StepRecord, Waiting } from "./run-state";
import { decodeStepRecords, encodeStepRecords } from "./step-records-codec";

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
  error: string | null;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
}

type RawRow = Record<string, unknown>;

/** A row as read back; `known.graph` when the caller has parsed the row's snapshot already. */
export function parseRow(r: RawRow, known?: { graph?: GraphSnapshot }): ExecutionRow {
  const graph = known?.graph ?? fromJsonText(r.graph as string, {} as GraphSnapshot);
  const startedAt = String(r.started_at);
  return {
    id: Number(r.id),
    rule_id: Number(r.rule_id),
    rule_name: String(r.rule_name),
    status: r.status as ExecutionStatus,
    trigger_type: String(r.trigger_type),
    trigger_context: fromJsonText(r.trigger_context as string, {} as TriggerContext),
    graph,
    pipeline_data: fromJsonText(r.pipeline_data as string, {}),
    step_records: decodeStepRecords(fromJsonText(r.step_records as string, []), graph, startedAt),
    activated_ports: fromJsonText(r.activated_ports as string, []),
    skipped_nodes: fromJsonText(r.skipped_nodes as string, []),
    errors: fromJsonText(r.errors as string, []),
    resume_at: (r.resume_at as string | null) ?? null,
    waiting: fromJsonText(r.waiting as string | null, []),
    rerun_of: r.rerun_of === null || r.rerun_of === undefined ? null : Number(r.rerun_of),
    error: (r.error as string | null) ?? null,
    started_at: startedAt,
    updated_at: String(r.updated_at),
    completed_at: (r.completed_at as string | null) ?? null,
  };
}

const READ_COLUMNS = [
  "id",
  "rule_id",
  "rule_name",
  "status",
  "trigger_type",
  "trigger_context",
  "pipeline_data",
  "step_records",
  "activated_ports",
  "skipped_nodes",
  "errors",
  "resume_at",
  "waiting",
  "rerun_of",
  "error",
  "started_at",
  "updated_at",
  "completed_at",
];

/**
 * Runs as `parseRow` reads them, with their graph snapshot (older rows hold theirs inline).
 * Filter on `we.`-qualified columns.
 */
export function selectExecutions(db: Knex): Knex.QueryBuilder {
  return db("workflow_executions as we")
    .leftJoin("graph_snapshots as gs", "gs.id", "we.graph_snapshot_id")
    .select(READ_COLUMNS.map((c) => `we.${c}`))
    .select(db.raw("coalesce(gs.graph, we.graph) as graph"));
}

/**
 * Filter runs by status. Running and parked runs are the ones not completed yet, and the
 * index on them is partial (`completed_at is null`): SQLite's planner uses it only when the
 * query names that same term, so it is added whenever only those statuses are asked for.
 */
/** Runs started with `from <= started_at < to`, counted per status. */
export async function countStartedBetween(db: Knex, from: string, to: string): Promise<Map<string, number>> {
  const rows: Array<{ status: string; n: number | string }> = await db("workflow_executions")
    .where("started_at", ">=", from)
    .andWhere("started_at", "<", to)
    .groupBy("status")
    .select("status")
    .count({ n: "*" });
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

export function whereStatus<Q extends Knex.QueryBuilder>(q: Q, statuses: readonly ExecutionStatus[], table = ""): Q {
  const col = (c: string) => (table ? `${table}.${c}` : c);
  q.whereIn(col("status"), [...statuses]);
  if (statuses.every((s) => s === "running" || s === "waiting")) q.whereNull(col("completed_at"));
  return q;
}

/** Columns set once, when the row is inserted. */
export const FIXED_COLUMNS = [
  "id",
  "rule_id",
  "rule_name",
  "trigger_type",
  "trigger_context",
  "graph_snapshot_id",
  "rerun_of",
  "event_log_id",
  "started_at",
  "room_name",
  "sensor_id",
] as const;
/** Columns that follow the run (`log_status` is its event log's status). */
export const MUTABLE_COLUMNS = [
  "status",
  "log_status",
  "pipeline_data",
  "step_records",
  "activated_ports",
  "skipped_nodes",
  "errors",
  "resume_at",
  "waiting",
  "error",
  "updated_at",
  "completed_at",
] as const;
export const SNAPSHOT_COLUMNS = ["id", "rule_id", "digest", "graph", "created_at"] as const;

export type SqlValue = string | number | null;

/** One run's values for one write; `fixed` only when its row does not exist yet. */
export interface RunWrite {
  id: number;
  fixed?: SqlValue[];
  mutable: SqlValue[];
}

/** What one group commit writes: graph snapshots new to the store, then runs. */
export interface WriteBatch {
  snapshots: SqlValue[][];
  runs: RunWrite[];
}

const ENDED = new Set<ExecutionStatus>(["completed", "failed", "cancelled"]);

/** The earliest resume time among parked branches, or null. */
export function earliestResume(waiting: readonly Waiting[]): string | null {
  let min: string | null = null;
  for (const w of waiting) if (w.resume_at !== null && (min === null || w.resume_at < min)) min = w.resume_at;
  return min;
}

function skippedSteps(s: RunState): string {
  // Rules have a handful of steps: a scan beats building a set per run.
  let out = "";
  for (const st of s.graph.steps) if (!s.steps.some((r) => r.step_id === st.id)) out += (out ? "," : "") + st.id;
  return `[${out}]`;
}

/** Frozen values are shared by runs: serialize each once. */
const frozenJson = new WeakMap<object, string>();
const once = (v: object): string => {
  let text = frozenJson.get(v);
  if (text === undefined) frozenJson.set(v, (text = toJsonText(v)));
  return text;
};

/**
 * pipeline_data as JSON.stringify writes it, reusing the text of frozen values (the `system`
 * object every run of a minute shares).
 */
function dataJson(data: Record<string, unknown>): string {
  let frozen = "";
  let rest: Record<string, unknown> | null = null;
  for (const key in data) {
    if (!Object.prototype.hasOwnProperty.call(data, key)) continue;
    const v = data[key];
    if (v !== null && typeof v === "object" && Object.isFrozen(v)) frozen += `,${JSON.stringify(key)}:${once(v)}`;
    else (rest ??= {})[key] = v;
  }
  if (!frozen) return JSON.stringify(data);
  // The rest in one call (the engine's fast path), the frozen values' text appended.
  const body = rest ? JSON.stringify(rest) : "{}";
  return body === "{}" ? `{${frozen.slice(1)}}` : `${body.slice(0, -1)}${frozen}}`;
}

/** The values to write for a run now; `snapshotId` is set when its row does not exist yet. */
export function runWrite(s: RunState, snapshotId: number | null, now: string): RunWrite {
  const ended = ENDED.has(s.status);
  const mutable: SqlValue[] = [
    s.status,
    eventLogStatus(s),
    dataJson(s.pipeline_data),
    // Steps under way go after the finished ones, as `running`: a kill leaves them there for recovery.
    encodeStepRecords(s.in_flight.length ? [...s.steps, ...s.in_flight] : s.steps, s.graph, s.started_ms),
    toJsonText(s.activated_ports),
    ended ? skippedSteps(s) : "[]",
    toJsonText(s.errors),
    // Kept while a branch is parked, even before the run itself is `waiting`: recovery reads it.
    s.waiting.length && !ended ? earliestResume(s.waiting) : null,
    s.waiting.length ? toJsonText(s.waiting) : null,
    s.failed_error,
    now,
    ended ? now : null,
  ];
  if (snapshotId === null) return { id: s.id, mutable };
  const t = s.trigger;
  return {
    id: s.id,
    fixed: [s.id, s.rule_id, s.rule_name, t.trigger_type, toJsonText(t), snapshotId, s.rerun_of, s.id, s.started_at, t.room_name, t.sensor_id],
    mutable,
  };
}

/** The event log follows the run: completed only when a step marked cool-off. */
export function eventLogStatus(s: Pick<RunState, "status" | "pipeline_data">): "processing" | "failed" | "ignored" | "completed" {
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
