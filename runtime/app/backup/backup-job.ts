/**
 * Scheduled backups: at each time of `backup.schedule` (cron in `app.timezone`), on the one
 * instance holding the lease `backup` (two instances backing up the same store at once would
 * only make two files). The next time is armed when one ends, so a slow backup never overlaps
 * the next; a failure is recorded by makeBackup (the health part shows it) and the schedule goes
 * on. A stop waits for a backup under way.
 */
import type { AppContext } from "../context";
import { leasesOf } from "../../platform/cluster/cluster";
import { whileHolding } from "../../platform/cluster/leases";
import { nextCronTime, parseCron } from "../../care/core/language/cron-schedule";
import { makeBackup } from "./backup.service";

export const BACKUP_LEASE = "backup";

/** When the schedule fires next after `afterMs` (null: no schedule). */
export function nextBackupAt(schedule: string | null, afterMs: number, timeZone: string): number | null {
  const fields = schedule === null ? null : parseCron(schedule);
  return fields ? nextCronTime(fields, afterMs, timeZone) : null;
}

export interface BackupJob {
  /** Resolves when the backup under way (on this instance) has finished; for tests. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function startBackupJob(ctx: AppContext): BackupJob {
  const schedule = ctx.settings.backup.schedule;
  let running: Promise<unknown> = Promise.resolve();
  if (schedule === null) return { idle: () => Promise.resolve(), stop: () => Promise.resolve() };
  const stop = whileHolding(leasesOf(ctx), BACKUP_LEASE, () => {
    let stopped = false;
    let cancel: (() => void) | undefined;
    const arm = (): void => {
      const at = nextBackupAt(schedule, ctx.clock.now(), ctx.settings.app.timezone);
      if (stopped || at === null) return;
      // A background timer: the job's own beat, like the retention job's.
      cancel = ctx.clock.at(at, fire, { background: true });
    };
    const fire = (): void => {
      if (stopped) return;
      running = makeBackup(ctx, "scheduled")
        .catch(() => undefined) // recorded and logged by makeBackup; the health part tells the family
        .then(arm);
    };
    arm();
    return async () => {
      stopped = true;
      cancel?.();
      await running;
    };
  });
  return { idle: async () => void (await running), stop };
}
