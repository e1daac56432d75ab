/**
 * Starts the triggers that fire rules on their own: cron, sensor events, occupancy, dementia
 * signals, the windows of continuous tracking (cts_window) and careflow's own parts (system_health).
 * Webhooks arrive over HTTP (`webhooks.router.ts`) and reach the engine through
 * `ctx.firer`; manual runs and chat commands call the firer directly.
 */
import type { CareContext } from "../../context";
import { clustered } from "../../../../platform/cluster/adopt";
import { leasesOf } from "../../../../platform/cluster/cluster";
import { whileHolding } from "../../../../platform/cluster/leases";
import { startRetention } from "../../../../platform/db/retention";
import type { RuleFirer } from "../engine/types";
import { CronScheduler, type CronSchedulerOptions } from "./cron-scheduler";
import { CtsWindowTrigger } from "./cts-window.trigger";
import { DementiaSignalTrigger } from "./dementia-signal.trigger";
import { PresenceRecorder } from "./occupancy-presence";
import { OccupancyTrigger } from "./occupancy.trigger";
import { deleteFiresBefore } from "./occupancy.store";
import { SensorEventTrigger } from "./sensor-event.trigger";
import { SystemHealthTrigger } from "./system-health.trigger";
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
  // Timed triggers fire once however many instances run: each runs where its lease is held.
  // The others answer inputs that reach one instance each. Occupancy's timers are timed with
  // several instances (each instance records the presence it sees for the holder); with one,
  // it is an input as it always was.
  const timed: Array<[string, Trigger]> = [
    ["cron", new CronScheduler(ctx, firer, opts.cron)],
    ["cts-window", new CtsWindowTrigger(ctx, firer)],
    // A part's change is told once however many instances run (each watches its own parts).
    ["system-health", new SystemHealthTrigger(ctx, firer)],
  ];
  const occupancy = new OccupancyTrigger(ctx, firer);
  const several = clustered(ctx);
  if (several) timed.push(["occupancy", occupancy]);
  const inputs: Trigger[] = [new SensorEventTrigger(ctx, firer), several ? new PresenceRecorder(ctx) : occupancy, new DementiaSignalTrigger(ctx, firer)];
  // A period's claims matter while it lasts; a week is far longer than any.
  const stopPruning = several
    ? startRetention(ctx, { what: "occupancy fires", days: 7, deleteBefore: (cutoff, signal) => deleteFiresBefore(ctx.db, Date.parse(cutoff), signal) })
    : null;
  const triggers = [...timed.map(([, t]) => t), ...inputs];
  const stopTimed = timed.map(([lease, t]) =>
    whileHolding(leasesOf(ctx), lease, () => {
      t.start();
      return () => t.stop();
    }),
  );
  for (const t of inputs) t.start();
  return {
    stop: () => {
      for (const stop of stopTimed) void stop();
      for (const t of inputs) t.stop();
      void stopPruning?.();
    },
    idle: async () => {
      await Promise.all(triggers.map((t) => t.idle()));
    },
  };
}
