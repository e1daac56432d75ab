/**
 * What the Household page and `GET /api/v1/admin/backups` show: where backups go, when the next
 * is due, the last that worked and the last that failed, and every file in the dir. The state
 * alone (`GET /api/v1/backup-status`) is for caregivers too: a family member who cannot make or
 * download a backup still sees whether last night's worked.
 */
import type { AppContext } from "../context";
import { isoAt } from "../../platform/core/clock";
import type { GaugeReading } from "../../platform/health/parts-board";
import { backupDir, listBackups, type BackupFile } from "./backup-files";
import { nextBackupAt } from "./backup-job";
import { BACKUP_PART_ID, backupReading } from "./backup-part";
import { backupUnderWay, lastOutcomes, type BackupOutcome } from "./backup.service";

export interface BackupState {
  /** As the health board's part `backup` says it: down when the last failed or a scheduled one was missed. */
  state: GaugeReading["state"];
  detail: string;
  /** A backup is being made now (on the instance answering). */
  under_way: boolean;
  schedule: string | null;
  timezone: string;
  /** When the next scheduled backup is due (null: none scheduled). */
  next_at: string | null;
  last_ok: BackupOutcome | null;
  last_failure: BackupOutcome | null;
}

export interface BackupStatus extends BackupState {
  dir: string;
  keep_daily: number;
  keep_weekly: number;
  backups: BackupFile[];
}

export async function backupState(ctx: AppContext): Promise<BackupState> {
  const reading = await backupReading(ctx);
  // The board shows the same at once, not at its next round: the page shows both side by side.
  if (ctx.parts?.has(BACKUP_PART_ID)) ctx.parts.read(BACKUP_PART_ID, reading);
  const next = nextBackupAt(ctx.settings.backup.schedule, ctx.clock.now(), ctx.settings.app.timezone);
  return {
    state: reading.state,
    detail: reading.detail,
    under_way: backupUnderWay(ctx),
    schedule: ctx.settings.backup.schedule,
    timezone: ctx.settings.app.timezone,
    next_at: next === null ? null : isoAt(next),
    ...(await lastOutcomes(ctx.db)),
  };
}

export async function backupStatus(ctx: AppContext): Promise<BackupStatus> {
  const { keep_daily, keep_weekly } = ctx.settings.backup;
  return { ...(await backupState(ctx)), dir: backupDir(ctx), keep_daily, keep_weekly, backups: await listBackups(ctx) };
}
