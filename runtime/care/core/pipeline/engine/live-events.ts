/**
 * Live run events (`PipelineExecutionEvent`): every status transition and step boundary,
 * numbered in order, for `/ws/pipeline` and anyone else who listens, to the types they ask for.
 */
import { isoAt } from "../../../../platform/core/clock";

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

export type LiveListener = (e: PipelineExecutionEvent) => void;

interface Subscription {
  listener: LiveListener;
  /** null: every type. */
  types: ReadonlySet<PipelineEventType> | null;
  /** Also the events of runs on the other instances (the live feed), not only this engine's. */
  otherInstances: boolean;
}

/**
 * Interest-based fan-out: each subscriber names the event types it wants (or all), and
 * `wants(type)` tells the engine in O(1) whether building an event of that type is worth it.
 */
export class LiveEvents {
  // Replaced, never mutated, on (un)subscribe: an emit walks the list it started with.
  private subs: readonly Subscription[] = [];
  private allTypes = 0;
  private readonly perType = new Map<PipelineEventType, number>();
  private sequence = 0;
  /** Subscribers to the other instances' runs (live feed clients), and who hears when there come to be some or none. */
  private otherListeners = 0;
  private readonly otherWatchers = new Set<(wanted: boolean) => void>();
  private readonly closeWatchers = new Set<() => void>();

  /** `watcher` hears when the engine stops (`close`): no event comes any more; returns how to stop. */
  onClose(watcher: () => void): () => void {
    this.closeWatchers.add(watcher);
    return () => this.closeWatchers.delete(watcher);
  }

  /** The engine stopped: whoever holds on for its events (the editor's watch) lets go. */
  close(): void {
    for (const watcher of [...this.closeWatchers]) watcher();
    this.closeWatchers.clear();
  }

  /** Does anyone here listen to the runs of the other instances? They send them only then. */
  get wantsOtherInstances(): boolean {
    return this.otherListeners > 0;
  }

  /** `watcher` hears each change of `wantsOtherInstances`; returns how to stop. */
  onOtherInstancesWanted(watcher: (wanted: boolean) => void): () => void {
    this.otherWatchers.add(watcher);
    return () => this.otherWatchers.delete(watcher);
  }

  /** Does at least one subscriber get events of this type? Callers skip building the rest. */
  wants(type: PipelineEventType): boolean {
    return this.allTypes > 0 || (this.perType.get(type) ?? 0) > 0;
  }

  /** Delivers to the subscribers of the event's type; numbers only delivered events. */
  emit(event: Omit<PipelineExecutionEvent, "type" | "sequence">): void {
    const e = event as PipelineExecutionEvent;
    if (!this.wants(e.event_type)) return;
    e.type = "pipeline_event";
    e.sequence = ++this.sequence;
    for (const s of this.subs) if (s.types === null || s.types.has(e.event_type)) s.listener(e);
  }

  /**
   * An event of a run on another instance (docs/cluster.md "Events"): numbered in this
   * instance's order and delivered only to the subscribers that asked for other instances'
   * events, so nothing here acts twice on a run another engine owns.
   */
  relay(event: PipelineExecutionEvent): void {
    let numbered = false;
    for (const s of this.subs) {
      if (!s.otherInstances || (s.types !== null && !s.types.has(event.event_type))) continue;
      if (!numbered) {
        event.sequence = ++this.sequence;
        numbered = true;
      }
      s.listener(event);
    }
  }

  /**
   * Listen to the given event types, or to all of them without `types`; `otherInstances`: also
   * to the runs of the other instances. Returns the unsubscribe function (calling it again does nothing).
   */
  subscribe(listener: LiveListener, types?: readonly PipelineEventType[] | null, opts: { otherInstances?: boolean } = {}): () => void {
    const sub: Subscription = { listener, types: types ? new Set(types) : null, otherInstances: opts.otherInstances === true };
    this.subs = [...this.subs, sub];
    this.count(sub, 1);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.subs = this.subs.filter((s) => s !== sub);
      this.count(sub, -1);
    };
  }

  private count(sub: Subscription, delta: 1 | -1): void {
    if (sub.otherInstances) {
      const before = this.wantsOtherInstances;
      this.otherListeners += delta;
      if (this.wantsOtherInstances !== before) for (const w of this.otherWatchers) w(this.wantsOtherInstances);
    }
    if (sub.types === null) {
      this.allTypes += delta;
      return;
    }
    for (const t of sub.types) {
      const n = (this.perType.get(t) ?? 0) + delta;
      if (n > 0) this.perType.set(t, n);
      else this.perType.delete(t);
    }
  }
}
