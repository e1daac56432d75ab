/**
 * What the app's event bus tells about latency: the alert loop (an alert raised to its first
 * send finished: `alert.created` to `alert.sent` with escalation 0) and the tracking lag (a
 * frame captured to its commit: `cts.frames`). Timed on the app's clock, as the events are.
 */
import { Histogram, type Registry } from "prom-client";
import type { PlatformContext } from "../../platform/context";

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Alerts raised and not sent yet that are remembered; one never sent (a prompt's timeout alert) must not grow the map. */
const MAX_UNSENT = 1000;

export function watchBus(ctx: Pick<PlatformContext, "bus" | "clock">, registry: Registry): () => void {
  const alertLoop = new Histogram({
    name: "careflow_alert_send_seconds",
    help: "From an alert raised to its first send finished (every channel answered or gave up), by level and whether anyone was reached.",
    labelNames: ["level", "outcome"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const trackingLag = new Histogram({
    name: "careflow_tracking_lag_seconds",
    help: "From the capture of the oldest tracking frame in a committed batch to its commit.",
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const unsent = new Map<number, { at: number; level: string }>();
  const stops = [
    ctx.bus.subscribe("alert.created", ({ alert_id, level }) => {
      unsent.set(alert_id, { at: ctx.clock.now(), level });
      if (unsent.size > MAX_UNSENT) unsent.delete(unsent.keys().next().value as number);
    }),
    ctx.bus.subscribe("alert.sent", ({ alert_id, escalation, delivered }) => {
      const raised = unsent.get(alert_id);
      if (escalation !== 0 || !raised) return;
      unsent.delete(alert_id);
      alertLoop.observe({ level: raised.level, outcome: delivered ? "delivered" : "failed" }, Math.max(0, ctx.clock.now() - raised.at) / 1000);
    }),
    ctx.bus.subscribe("cts.frames", ({ earliest_ms }) => trackingLag.observe(Math.max(0, ctx.clock.now() - earliest_ms) / 1000)),
  ];
  return () => {
    for (const stop of stops) stop();
    unsent.clear();
  };
}
