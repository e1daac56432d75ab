/**
 * A run as rows: its workflow_executions row and its event log, as column values in a fixed
 * order, so that one list of columns serves both writers (prepared statements on SQLite,
 * multi-row statements on PostgreSQL).
 */
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

/** Columns set once, when the row is inserted. */
export const FIXED_COLUMNS = ["id", "rule_id", "rule_name", "trigger_type", "trigger_context", "graph", "rerun_of", "event_log_id", "started_at"] as const;
/** Columns that follow the run. */
export const MUTABLE_COLUMNS = ["status", "pipeline_data", "step_records", "activated_ports", "skipped_nodes", "errors", "resume_at", "waiting", "error", "updated_at", "completed_at"] as const;
export const EVENT_LOG_COLUMNS = ["id", "timestamp", "rule_id", "rule_name", "room_name", "sensor_id", "status", "trigger_type", "execution_id", "pipeline_data_json"] as const;
export const EVENT_LOG_MUTABLE = ["status", "pipeline_data_json"] as const;

export type SqlValue = string | number | null;

/** One run's values for one write; `fixed` and `log` only when its rows do not exist yet. */
export interface RunWrite {
  id: number;
  event_log_id: number;
  fixed?: SqlValue[];
  mutable: SqlValue[];
  log?: SqlValue[];
  log_status: string;
  pipeline_data: string;
}

/** A run's snapshot and trigger never change; serialize each once, however many runs share it. */
const frozenJson = new WeakMap<object, string>();
const once = (v: object): string => {
  let text = frozenJson.get(v);
  if (text === undefined) frozenJson.set(v, (text = toJsonText(v)));
  return text;
};

const ENDED = new Set<ExecutionStatus>(["completed", "failed", "cancelled"]);

/** The earliest resume time among parked branches, or null. */
function earliestResume(waiting: readonly Waiting[]): string | null {
  let min: string | null = null;
  for (const w of waiting) if (w.resume_at !== null && (min === null || w.resume_at < min)) min = w.resume_at;
  return min;
}

function skippedSteps(s: RunState): number[] {
  const executed = new Set(s.steps.map((r) => r.step_id));
  return s.graph.steps.filter((st) => !executed.has(st.id)).map((st) => st.id);
}

/** The values to write for a run now; `fresh` when its rows are not in the store yet. */
export function runWrite(s: RunState & { event_log_id: number }, fresh: boolean, now: string): RunWrite {
  const ended = ENDED.has(s.status);
  const pipelineData = toJsonText(s.pipeline_data);
  const mutable: SqlValue[] = [
    s.status,
    pipelineData,
    toJsonText(s.steps),
    toJsonText(s.activated_ports),
    ended ? toJsonText(skippedSteps(s)) : "[]",
    toJsonText(s.errors),
    // Kept while a branch is parked, even before the run itself is `waiting`: recovery reads it.
    s.waiting.length && !ended ? earliestResume(s.waiting) : null,
    s.waiting.length ? toJsonText(s.waiting) : null,
    s.failed_error,
    now,
    ended ? now : null,
  ];
  const logStatus = eventLogStatus(s);
  if (!fresh) return { id: s.id, event_log_id: s.event_log_id, mutable, log_status: logStatus, pipeline_data: pipelineData };
  return {
    id: s.id,
    event_log_id: s.event_log_id,
    fixed: [s.id, s.rule_id, s.rule_name, s.trigger.trigger_type, once(s.trigger), once(s.graph), s.rerun_of, s.event_log_id, s.started_at],
    mutable,
    log: [s.event_log_id, s.started_at, s.rule_id, s.rule_name, s.trigger.room_name, s.trigger.sensor_id, logStatus, s.trigger.trigger_type, s.id, pipelineData],
    log_status: logStatus,
    pipeline_data: pipelineData,
  };
}

/** The event log follows the run: completed only when a step marked cool-off. */
export function eventLogStatus(s: Pick<RunState, "status" | "pipeline_data">): string {
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
