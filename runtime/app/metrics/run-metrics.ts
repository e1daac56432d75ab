/**
 * Runs and steps as they finish, counted from the engine's live run events (the same events
 * `/ws/pipeline` carries), so the engine itself keeps no counters. Labels stay bounded: a
 * rule by its id (never its name, which a caregiver may change), a step by its type.
 */
import { Counter, Histogram, type Registry } from "prom-client";
import type { LiveEvents, PipelineExecutionEvent } from "../../care/core/pipeline/engine/live-events";

/** From a flow step's microseconds to the 60 s step timeout. */
const STEP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const FINISHED = { pipeline_completed: "completed", pipeline_failed: "failed", pipeline_cancelled: "cancelled" } as const;

export class RunMetrics {
  private readonly runs: Counter<"rule_id" | "status">;
  private readonly steps: Histogram<"step_type" | "outcome">;

  constructor(registry: Registry) {
    this.runs = new Counter({
      name: "careflow_runs_total",
      help: "Runs of rules that finished on this instance, by rule id and final status (completed, failed, cancelled).",
      labelNames: ["rule_id", "status"],
      registers: [registry],
    });
    this.steps = new Histogram({
      name: "careflow_step_duration_seconds",
      help: "How long each step's handler took, by step type and outcome (success, failed).",
      labelNames: ["step_type", "outcome"],
      buckets: STEP_BUCKETS,
      registers: [registry],
    });
  }

  /** Listens to an engine's run events (only the types counted here); returns how to stop. */
  watch(live: Pick<LiveEvents, "subscribe">): () => void {
    return live.subscribe((e) => this.onEvent(e), ["step_completed", ...(Object.keys(FINISHED) as Array<keyof typeof FINISHED>)]);
  }

  private onEvent(e: PipelineExecutionEvent): void {
    if (e.event_type === "step_completed") {
      const stepType = typeof e.step_type === "string" ? e.step_type : "unknown";
      this.steps.observe({ step_type: stepType, outcome: e.error ? "failed" : "success" }, e.elapsed_ms / 1000);
      return;
    }
    const status = FINISHED[e.event_type as keyof typeof FINISHED];
    if (status) this.runs.inc({ rule_id: String(e.rule_id), status });
  }
}
