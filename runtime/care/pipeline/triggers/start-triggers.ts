/**
 * Starts the triggers that fire rules on their own: cron, sensor events, occupancy, dementia
 * signals and the windows of continuous tracking (cts_window).
 * Webhooks arrive over HTTP (`webhooks.router.ts`) and reach the engine through
 * `ctx.firer`; manual runs and chat commands call the firer directly.
 */
import type { CareContext } from "../../context";
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
  const triggers: Trigger[] = [
    new CronScheduler(ctx, firer, opts.cron),
    new SensorEventTrigger(ctx, firer),
    new OccupancyTrigger(ctx, firer),
    new DementiaSignalTrigger(ctx, firer),
    new CtsWindowTrigger(ctx, firer),
  ];
  for (const t of triggers) t.start();
  return {
    stop: () => {
      for (const t of triggers) t.stop();
    },
    idle: async () => {
      await Promise.all(triggers.map((t) => t.idle()));
    },
  };
}
