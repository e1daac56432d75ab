/** What the engine holds in memory for a run in progress; the row in the store is its durable copy. */
import type { StepTrace, TriggerContext } from "../../../../../nodes/_kit/handler-types";
import type { ExecutionRow } from "./execution-rows";
import type { GraphSnapshot } from "./graph-snapshot";

export type ExecutionStatus = "running" | "waiting" | "completed" | "failed" | "cancelled";

/** One step's record, kept compact: a run's records are one JSON column. */
export interface StepRecord {
  step_id: number;
  label: string;
  step_type: string;
  started_at: string;
  elapsed_ms: number;
  success: boolean;
  /**
   * `running`: a step that acts on the world, under way (written before it starts, so a kill
   * leaves it in the row); `interrupted`: such a step a restart found under way (recovery.ts).
   */
  status: "success" | "failed" | "waiting" | "running" | "interrupted";
  output_ports: string[];
  error?: string;
  /** The step did its job but a person must look (see StepResult.warning). */
  warning?: string;
  receipts?: StepReceipt[];
  trace?: StepTrace;
  /** An interrupted step: what it is known to have done before the restart (its alert, its sends). */
  done?: string[];
}

/** A channel's delivery receipt as a step record keeps it. */
export interface StepReceipt {
  channel: string;
  delivered: boolean;
  detail?: string;
  /** Tried because every channel of the send failed. */
  fallback?: boolean;
}

/** Where a parked branch continues: which node sends on which ports when the run resumes. */
export interface Waiting {
  node_id: string;
  step_id: number;
  ports: string[];
  resume_at: string | null;
  /** Merged into pipeline_data when the timer, not an answer, ends the wait. */
  on_timeout_data?: Record<string, unknown>;
}

export interface RunState {
  id: number;
  rule_id: number;
  rule_name: string;
  status: ExecutionStatus;
  trigger: TriggerContext;
  graph: GraphSnapshot;
  pipeline_data: Record<string, unknown>;
  steps: StepRecord[];
  activated_ports: string[];
  errors: string[];
  /** A warning of this run has been logged (one line per run, however many steps warn). */
  warning_logged?: boolean;
  waiting: Waiting[];
  /**
   * Steps that act on the world, under way: written with the run (as `running` records after
   * its steps) before each starts, so a restart can say which step a kill cut short.
   */
  in_flight: StepRecord[];
  /** Messages of this run travelling between nodes, or being handled by one. */
  pending: number;
  /** Of those, messages a step handler is working on. */
  in_handler: number;
  cancel_requested: boolean;
  failed_error: string | null;
  started_at: string;
  /** `started_at` as ms, for the live events' elapsed time. */
  started_ms: number;
  rerun_of: number | null;
  /** Whole-run timeout, counted while running (waits excluded). */
  active_ms: number;
  running_since: number;
  /** Aborted when the run is cancelled or times out, so steps in progress stop too. */
  abort?: AbortController;
}

/** A run about to start: running, nothing recorded yet (the store gives it its id). */
export function newRunState(
  graph: GraphSnapshot,
  trigger: TriggerContext,
  pipelineData: Record<string, unknown>,
  startedAt: string,
  nowMs: number,
  rerunOf: number | null,
): Omit<RunState, "id"> {
  return {
    rule_id: graph.rule_id,
    rule_name: graph.rule_name,
    status: "running",
    trigger,
    graph,
    pipeline_data: pipelineData,
    steps: [],
    activated_ports: [],
    errors: [],
    waiting: [],
    in_flight: [],
    pending: 0,
    in_handler: 0,
    cancel_requested: false,
    failed_error: null,
    started_at: startedAt,
    started_ms: Date.parse(startedAt),
    rerun_of: rerunOf,
    active_ms: 0,
    running_since: nowMs,
  };
}

/** A parked run brought back from its row to continue. */
export function reviveRun(row: ExecutionRow, nowMs: number): RunState {
  return {
    id: row.id,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    status: "running",
    trigger: row.trigger_context,
    graph: row.graph,
    pipeline_data: row.pipeline_data,
    // A step under way is never read back as such: recovery turns it into an interrupted one first.
    steps: row.step_records.filter((r) => r.status !== "running"),
    activated_ports: row.activated_ports,
    errors: row.errors,
    waiting: row.waiting,
    in_flight: [],
    pending: 0,
    in_handler: 0,
    cancel_requested: false,
    failed_error: null,
    started_at: row.started_at,
    started_ms: Date.parse(row.started_at),
    rerun_of: row.rerun_of,
    active_ms: 0,
    running_since: nowMs,
  };
}

/** A step's record as a run keeps it: compact, times in ms rounded to the microsecond. */
export function stepRecord(
  step: { id: number; label: string; step_type: string },
  startedAt: string,
  elapsedMs: number,
  success: boolean,
  ports: string[],
  error?: string,
  status?: StepRecord["status"],
): StepRecord {
  const rec: StepRecord = {
    step_id: step.id,
    label: step.label,
    step_type: step.step_type,
    started_at: startedAt,
    elapsed_ms: Math.round(elapsedMs * 1000) / 1000,
    success,
    status: status ?? (success ? "success" : "failed"),
    output_ports: ports,
  };
  if (error) rec.error = error;
  return rec;
}

/** Longest text a trace keeps per field, and most images: the trace is read by a person. */
const TRACE_TEXT_MAX = 2000;
const TRACE_IMAGES_MAX = 10;

/** A step's trace as its record keeps it: long texts cut with an ellipsis, empty fields dropped. */
export function readableTrace(trace: StepTrace): StepTrace {
  const cut = (s: string | undefined) => (s === undefined || s === "" ? undefined : s.length > TRACE_TEXT_MAX ? `${s.slice(0, TRACE_TEXT_MAX - 1)}…` : s);
  const out: StepTrace = {
    message: cut(trace.message),
    prompt: cut(trace.prompt),
    images: trace.images?.length ? trace.images.slice(0, TRACE_IMAGES_MAX) : undefined,
    answer: cut(trace.answer),
    model: cut(trace.model),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as StepTrace;
}
