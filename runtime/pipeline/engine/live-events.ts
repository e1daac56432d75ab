/**
 * Live run events (`PipelineExecutionEvent`): every status transition and step boundary,
 * numbered in order, for `/ws/pipeline` and anyone else who listens.
 */
import { EventEmitter } from "node:events";
import { isoAt } from "../../core/clock";

export type PipelineEventType =
  | "pipeline_started"
  | "step_started"
  | "step_completed"
  | "pipeline_waiting"
  | "pipeline_resumed"
  | "pipeline_completed"
  | "pipeline_failed"
  | "pipeline_cancelled";

export interface PipelineExecutionEvent {
  type: "pipeline_event";
  event_type: PipelineEventType;
  execution_id: number;
  rule_id: number;
  rule_name: string;
  status: string;
  previous_status: string | null;
  step_id: number | null;
  step_label: string | null;
  elapsed_ms: number;
  sequence: number;
  at: string;
  [extra: string]: unknown;
}

/** The event of a run's transition or step boundary, at `nowMs`. */
export function runEvent(
  run: { id: number; rule_id: number; rule_name: string; status: string; started_at: string },
  event_type: PipelineEventType,
  previous: string | null,
  extra: Record<string, unknown>,
  nowMs: number,
  startedMs: number = Date.parse(run.started_at),
): Omit<PipelineExecutionEvent, "type" | "sequence"> {
  const event: Omit<PipelineExecutionEvent, "type" | "sequence"> = {
    event_type,
    execution_id: run.id,
    rule_id: run.rule_id,
    rule_name: run.rule_name,
    status: run.status,
    previous_status: previous,
    step_id: (extra.step_id as number | undefined) ?? null,
    step_label: (extra.step_label as string | undefined) ?? null,
    elapsed_ms: nowMs - startedMs,
    at: isoAt(nowMs),
  };
  return Object.assign(event, extra);
}

export class LiveEvents {
  private readonly emitter = new EventEmitter();
  private sequence = 0;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Has anyone subscribed? Callers skip building events nobody receives. */
  get listened(): boolean {
    return this.emitter.listenerCount("event") > 0;
  }

  emit(event: Omit<PipelineExecutionEvent, "type" | "sequence">): void {
    if (!this.listened) return;
    const e = event as PipelineExecutionEvent;
    e.type = "pipeline_event";
    e.sequence = ++this.sequence;
    this.emitter.emit("event", e);
  }

  subscribe(listener: (e: PipelineExecutionEvent) => void): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }
}
