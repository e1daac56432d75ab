/**
 * `GET /metrics` for one app (issue 46 §4): a registry of its own, never prom-client's global
 * one, so several apps in one process (tests, a rehearsal) keep their numbers apart. Counters
 * and histograms are fed from events (the engine's run events, the bus); gauges read the
 * app's state at scrape time. Every metric and its labels: docs/metrics.md.
 */
import { collectDefaultMetrics, Registry } from "prom-client";
import type { PlatformContext } from "../../platform/context";
import type { LiveEvents } from "../../care/core/pipeline/engine/live-events";
import { watchBus } from "./bus-metrics";
import { RunMetrics } from "./run-metrics";
import { QueueDepths, stateGauges } from "./state-metrics";

export class AppMetrics {
  readonly registry = new Registry();
  /** Where each queue's depth is read: parts add theirs as the app starts them. */
  readonly queues = new QueueDepths();
  private readonly runs: RunMetrics;
  private readonly stopBus: () => void;
  private processMetrics = false;

  constructor(ctx: Pick<PlatformContext, "db" | "parts" | "cluster" | "bus" | "clock">) {
    this.runs = new RunMetrics(this.registry);
    this.stopBus = watchBus(ctx, this.registry);
    stateGauges(ctx, this.registry, this.queues);
  }

  /** Counts an engine's runs and steps from its live events; returns how to stop. */
  watchRuns(live: Pick<LiveEvents, "subscribe">): () => void {
    return this.runs.watch(live);
  }

  /** The exposition in the Prometheus text format. */
  async scrape(): Promise<string> {
    // The process's own metrics (CPU, memory, event loop, GC) start with the first scrape: the
    // library's observers cannot be stopped, so an app nobody scrapes (most tests) never makes them.
    if (!this.processMetrics) {
      this.processMetrics = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  stop(): void {
    this.stopBus();
  }
}
