/**
 * The Backups part of the health board (docs/backups.md, docs/health.md): a gauge read from the
 * outcomes every instance records in `kv`, so it says the same wherever it is asked. Down when
 * the last backup failed, until one works; down when a scheduled one was missed: the time due
 * after the last success (or after this start, for a store never backed up) passed over an hour
 * ago. A part gone down is what the family hears about (the demo's rule "A part went quiet").
 * The Household page's Backups section reads the same reading (backup-status.ts).
 */
import type { AppContext } from "../context";
import { isoAt } from "../../platform/core/clock";
import type { GaugeReading, PartsBoard } from "../../platform/health/parts-board";
import { localParts } from "../../platform/core/zoned-time";
import { nextBackupAt } from "./backup-job";
import { backupUnderWay, lastOutcomes } from "./backup.service";

export const BACKUP_PART_ID = "backup";
/** How long past its time a scheduled backup may take before it counts as missed. */
export const MISSED_AFTER_MS = 60 * 60_000;

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Registers the part when backups are scheduled. */
export function addBackupPart(ctx: AppContext, board: PartsBoard): void {
  if (ctx.settings.backup.schedule === null) return;
  board.gauge(BACKUP_PART_ID, "backup", "Backups", () => backupReading(ctx));
}

/** The backups' state now: what the part says, and what the page shows a caregiver. */
export async function backupReading(ctx: AppContext): Promise<GaugeReading> {
  const schedule = ctx.settings.backup.schedule;
  // A store never backed up is missed an hour after the first backup due since this start.
  const since = ctx.startedAt;
  const tz = ctx.settings.app.timezone;
  const local = (iso: string): string => {
    const p = localParts(Date.parse(iso), tz);
    const two = (n: number) => String(n).padStart(2, "0");
    return `${p.year}-${two(p.month)}-${two(p.day)} ${two(p.hour)}:${two(p.minute)}`;
  };
  const { last_ok, last_failure } = await lastOutcomes(ctx.db);
  const okAt = last_ok ? Date.parse(last_ok.at) : null;
  if (last_failure) return { state: "down", detail: `the backup of ${local(last_failure.at)} failed: ${last_failure.error ?? "no reason given"}` };
  // One being made is not missed, however far a test's clock jumped meanwhile.
  if (backupUnderWay(ctx)) return { state: "ok", detail: "a backup is being made now" };
  const due = nextBackupAt(schedule, okAt ?? since, tz);
  if (due !== null && ctx.clock.now() > due + MISSED_AFTER_MS)
    return { state: "down", detail: `the backup due at ${local(isoAt(due))} was not made${last_ok ? ` (the last is of ${local(last_ok.at)})` : ""}` };
  return last_ok
    ? { state: "ok", detail: `the last backup: ${local(last_ok.at)}, ${mib(last_ok.size_bytes ?? 0)}` }
    : { state: "ok", detail: due === null ? "no backup yet" : `no backup yet; the first is due at ${local(isoAt(due))}` };
}
