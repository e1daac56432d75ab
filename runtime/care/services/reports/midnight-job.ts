/**
 * Stores the day's reports when it ends: a timer on the app's clock at the next local
 * midnight (`app.timezone`), re-armed at each. At start, and at each midnight, every missing
 * report of the last `CATCH_UP_DAYS` days is stored, so a service that was down at
 * midnight stores what it missed when it comes back, once (the store keeps the first).
 * The timer is armed only while there is a member to report on: a new member arms it. An
 * identity revision that rewrote a past day's history rebuilds its stored reports
 * (revised-reports.ts), in the same queue. With several instances it runs on the one holding
 * the lease `daily-reports`.
 */
import { SerialWork } from "../../../platform/core/serial-work";
import type { CareContext } from "../../core/context";
import { storeMissingReports } from "./daily-report";
import { rebuildRevisedReports } from "./revised-reports";
import { nextMidnight } from "./local-day";
import { countPersons } from "../../../household/persons/persons.service";
import { leasesOf } from "../../../platform/cluster/cluster";
import { whileHolding } from "../../../platform/cluster/leases";

export interface DailyReportJob {
  /** Resolves when every store started so far has finished; for tests. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The midnight job, on the one instance holding its lease (`daily-reports`). */
export function startDailyReports(ctx: CareContext): DailyReportJob {
  let job: DailyReportJob | null = null;
  const stop = whileHolding(leasesOf(ctx), "daily-reports", () => {
    const mine = midnightJob(ctx);
    job = mine;
    return () => {
      if (job === mine) job = null;
      return mine.stop();
    };
  });
  return { idle: async () => job?.idle(), stop };
}

function midnightJob(ctx: CareContext): DailyReportJob {
  let stopped = false;
  let timer: { at: number; cancel: () => void } | undefined;
  const work = new SerialWork((err: unknown) => ctx.log.error({ err }, "daily reports: storing the reports of past days failed"));
  const enqueue = (piece: () => Promise<void>): void => work.add(piece);
  /** Arms for the first midnight after `fromMs`, unless armed. */
  const armAfter = (fromMs: number): void => {
    if (stopped || timer) return;
    const at = nextMidnight(fromMs, ctx.settings.app.timezone);
    timer = {
      at,
      cancel: ctx.clock.at(at, () => {
        timer = undefined;
        if (stopped) return;
        // Re-armed at once, so a clock that jumps over several midnights fires each.
        armAfter(at);
        store(at);
      }),
    };
  };
  /** Stores the missing reports as at `asOfMs`; with nobody to report on, the timer goes. */
  const store = (asOfMs: number): void =>
    enqueue(async () => {
      const stored = await storeMissingReports(ctx, asOfMs);
      if (stored) ctx.log.info({ stored }, "daily reports stored");
      if ((await countPersons(ctx)) === 0) {
        timer?.cancel();
        timer = undefined;
      }
    });
  /** Arms for the midnight after `fromMs` (when the member came), once someone is there. */
  const armForMembers = (fromMs: number): void =>
    enqueue(async () => {
      if ((await countPersons(ctx)) > 0) armAfter(fromMs);
    });

  store(ctx.clock.now());
  armForMembers(ctx.clock.now());
  // This job runs on one instance (its lease): members added and revisions made on the others count too.
  const unsubscribe = ctx.bus.subscribe("person.added", () => armForMembers(ctx.clock.now()), { otherInstances: true });
  // In the same queue as the midnight stores, so a rebuilt report is never stored over again.
  const unsubscribeRevised = ctx.bus.subscribe(
    "tracking.revised",
    (revised) =>
      enqueue(async () => {
        const replaced = await rebuildRevisedReports(ctx, revised);
        if (replaced) ctx.log.info({ replaced, revision_id: revised.revision_id }, "daily reports rebuilt after an identity revision");
      }),
    { otherInstances: true },
  );

  return {
    idle: () => work.idle(),
    stop: async () => {
      stopped = true;
      unsubscribe();
      unsubscribeRevised();
      timer?.cancel();
      timer = undefined;
      await work.idle();
    },
  };
}
