/**
 * Starts the triggers that fire rules on their own: cron, sensor events, occupancy, dementia
 * signals and the windows of continuous tracking (cts_window).
 * Webhooks arrive over HTTP (`webhooks.router.ts`) and reach the engine through
 * `ctx.firer`; manual runs and chat commands call the firer directly.
 */
import type { CareContext } from "../../context";
import { leasesOf } from "../../../platform/cluster/cluster";
import { whileHolding } from "../../../platform/cluster/leases";
import type { RuleFirer } from "../engine/types";
import { CronScheduler, type CronSchedulerOptions } from "./cron-scheduler";
import { CtsWindowTrigger } from "./cts-window.trigger";
import { DementiaSignalTrigger } from "./dementia-signal.trigger";
import { OccupancyTrigger } from "./occupancy.trigger";
import { SensorEventTrigger } from "./sensor-event.trigger";
import type { Trigger } from "./trigger-kit";

export interface RunningTriggers {
  stop(): void;
  /** Resolves when the work the triggers started so far has finished; for tests. */
  idle(): Promise<void>;
}

export interface StartTriggersOptions {
  cron?: CronSchedulerOptions;
}

export function startTriggers(ctx: CareContext, firer: RuleFirer, opts: StartTriggersOptions = {}): RunningTriggers {
  const cron = new CronScheduler(ctx, firer, opts.cron);
  const triggers: Trigger[] = [
    cron,
    new SensorEventTrigger(ctx, firer),
    new OccupancyTrigger(ctx, firer),
    new DementiaSignalTrigger(ctx, firer),
    new CtsWindowTrigger(ctx, firer),
  ];
  // Each tick fires once however many instances run: cron runs where its lease is held. The
  // other triggers answer inputs that reach one instance each (occupancy's timers are not yet
  // leased: docs/cluster.md).
  const stopCron = whileHolding(leasesOf(ctx), "cron", () => {
    cron.start();
    return () => cron.stop();
  });
  for (const t of triggers) if (t !== cron) t.start();
  return {
    stop: () => {
      void stopCron();
      for (const t of triggers) if (t !== cron) t.stop();
    },
    idle: async () => {
      await Promise.all(triggers.map((t) => t.idle()));
    },
  };
}
