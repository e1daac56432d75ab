/**
 * The runs sidebar's interest in live events. An open editor calls `watch()` every 20 s;
 * the sidebar listens to the engine from the first watch until `ttlMs` after the last, so
 * an engine nobody is looking at builds no events for the editor.
 */
import { systemClock, type Clock } from "../../runtime/platform/core/clock";
import type { LiveEvents, PipelineExecutionEvent } from "../../runtime/care/core/pipeline/engine/live-events";

/** Three missed 20 s watches: the editor page is gone (or asleep). */
export const WATCH_TTL_MS = 60_000;

export interface RunsWatchOptions {
  /** Where each event goes (Node-RED comms). */
  forward: (event: PipelineExecutionEvent) => void;
  ttlMs?: number;
  /** Timers come from here; the default is a real, unref'd timer (not the app's clock). */
  clock?: Clock;
}

export class RunsWatch {
  private live?: LiveEvents;
  private unsubscribe?: () => void;
  private cancelExpiry?: () => void;
  private offClose?: () => void;
  private readonly ttlMs: number;
  private readonly clock: Clock;

  constructor(private readonly opts: RunsWatchOptions) {
    this.ttlMs = opts.ttlMs ?? WATCH_TTL_MS;
    this.clock = opts.clock ?? systemClock;
  }

  /** An editor is watching `live` (the current app's engine): listen, and push the expiry back. */
  watch(live: LiveEvents): void {
    // A re-attached app brings a new engine: follow it.
    if (this.live !== live) {
      this.stop();
      this.live = live;
      this.unsubscribe = live.subscribe((e) => this.opts.forward(e));
      // A stopped engine sends nothing more: its expiry timer goes with it.
      this.offClose = live.onClose(() => this.stop());
    }
    this.cancelExpiry?.();
    this.cancelExpiry = this.clock.at(this.clock.now() + this.ttlMs, () => this.stop());
  }

  get active(): boolean {
    return this.unsubscribe !== undefined;
  }

  stop(): void {
    this.cancelExpiry?.();
    this.cancelExpiry = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.offClose?.();
    this.offClose = undefined;
    this.live = undefined;
  }
}
