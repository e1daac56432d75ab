/**
 * The backup dir: its files' names (`careflow-20260105-033000Z.cfbackup`, the UTC time it was
 * made, so they sort by age), the list with each file's manifest, and the pruning that keeps the
 * newest backup of each of the last `keep_daily` days and of each of the last `keep_weekly`
 * weeks (Monday to Sunday, in `app.timezone`) that have one. Scheduled and hand-made backups
 * are pruned alike: a family's "Back up now" before a big change is the newest of its day until
 * the next one, and then the day's last backup stands for the day.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { PlatformContext } from "../../platform/context";
import { NotFoundError } from "../../platform/core/errors";
import { readManifest } from "../../platform/backup/container";
import type { BackupManifest } from "../../platform/backup/manifest";
import { localParts } from "../../platform/core/zoned-time";

export const BACKUP_NAME = /^careflow-(\d{8})-(\d{6})Z(?:-(\d{1,3}))?(-before-upgrade)?\.cfbackup$/;

/** A backup a start took before it upgraded the store: kept by count, not by day. */
const beforeUpgrade = (name: string): boolean => BACKUP_NAME.exec(name)?.[4] !== undefined;

export interface BackupFile {
  name: string;
  size_bytes: number;
  created_at: string;
  made_by: BackupManifest["made_by"];
  dialect: BackupManifest["dialect"];
  schema: string;
  careflow_version: string;
  media_objects: number;
  /** Rows of the household's main tables (persons, rules, …) at the snapshot. */
  counts: Record<string, number>;
}

type DirContext = Pick<PlatformContext, "settings" | "dataDir">;

export const backupDir = (ctx: DirContext): string => path.resolve(ctx.dataDir, ctx.settings.backup.dir ?? "backups");

const stamp = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}Z$/, "Z")
    .replace("T", "-");

/** A name not yet taken in `dir` for a backup made at `nowMs` (`-before-upgrade` for a start's). */
export async function backupFileName(dir: string, nowMs: number, madeBy?: BackupManifest["made_by"]): Promise<string> {
  const base = `careflow-${stamp(nowMs)}`;
  const tail = madeBy === "upgrade" ? "-before-upgrade.cfbackup" : ".cfbackup";
  for (let i = 1; ; i++) {
    const name = i === 1 ? `${base}${tail}` : `${base}-${i}${tail}`;
    if (!(await fs.stat(path.join(dir, name)).catch(() => null))) return name;
  }
}

/** The tables a family would recognise, shown beside each backup. */
const SHOWN_COUNTS = ["persons", "rooms", "sensors", "rules", "face_descriptors", "knowledge_documents", "workflow_executions", "alerts"];

export function describeBackup(name: string, size: number, m: BackupManifest): BackupFile {
  return {
    name,
    size_bytes: size,
    created_at: m.created_at,
    made_by: m.made_by,
    dialect: m.dialect,
    schema: m.schema,
    careflow_version: m.careflow_version,
    media_objects: m.media.objects,
    counts: Object.fromEntries(SHOWN_COUNTS.filter((t) => t in m.counts).map((t) => [t, m.counts[t]])),
  };
}

/** Every backup in the dir, newest first; a file that cannot be read is left out of the list (and logged). */
export async function listBackups(ctx: DirContext & Pick<PlatformContext, "log">): Promise<BackupFile[]> {
  const dir = backupDir(ctx);
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => BACKUP_NAME.test(n));
  const out: BackupFile[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    try {
      const [st, manifest] = await Promise.all([fs.stat(file), readManifest<BackupManifest>(file)]);
      out.push(describeBackup(name, st.size, manifest));
    } catch (err) {
      ctx.log.warn({ err, file }, "backup: a file in the backup dir could not be read");
    }
  }
  return out.sort((a, b) => b.name.localeCompare(a.name));
}

/** The path of the backup named `name`, or 404. */
export async function backupPath(ctx: DirContext, name: string): Promise<string> {
  if (!BACKUP_NAME.test(name)) throw new NotFoundError(`no backup named '${name.slice(0, 80)}'`);
  const file = path.join(backupDir(ctx), name);
  const st = await fs.stat(file).catch(() => null);
  if (!st?.isFile()) throw new NotFoundError(`no backup named '${name}'`);
  return file;
}

/** A second backup within the same second is `-2`, then `-3`: later than the one without a number. */
const sequenceOf = (name: string): number => Number(BACKUP_NAME.exec(name)?.[3] ?? 1);

/** Newest first: by the instant, then within one second by the name's sequence number. */
const newerFirst = (a: { name: string; atMs: number }, b: { name: string; atMs: number }): number =>
  b.atMs - a.atMs || sequenceOf(b.name) - sequenceOf(a.name) || b.name.localeCompare(a.name);

/** The names to keep of `names` (backup file names), made at the given instants. */
export function keptBackups(backups: ReadonlyArray<{ name: string; atMs: number }>, keepDaily: number, keepWeekly: number, timeZone: string): Set<string> {
  const newestFirst = [...backups].sort(newerFirst);
  const keep = new Set<string>();
  const byPeriod = (periodOf: (ms: number) => string, count: number): void => {
    const seen = new Set<string>();
    for (const b of newestFirst) {
      const period = periodOf(b.atMs);
      if (seen.has(period)) continue;
      if (seen.size >= count) break;
      seen.add(period);
      keep.add(b.name);
    }
  };
  const day = (ms: number): string => {
    const p = localParts(ms, timeZone);
    return `${p.year}-${p.month}-${p.day}`;
  };
  const week = (ms: number): string => {
    const p = localParts(ms, timeZone);
    // The Monday of its week, as a calendar date (the UTC arithmetic is only on the date).
    const monday = new Date(Date.UTC(p.year, p.month - 1, p.day - ((p.weekday + 6) % 7)));
    return monday.toISOString().slice(0, 10);
  };
  byPeriod(day, keepDaily);
  byPeriod(week, keepWeekly);
  return keep;
}

const atOfName = (name: string): number => {
  const m = BACKUP_NAME.exec(name);
  if (!m) return NaN;
  const [d, t] = [m[1], m[2]];
  return Date.parse(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${t.slice(0, 2)}:${t.slice(2, 4)}:${t.slice(4, 6)}Z`);
};

/** Deletes the backups the keep rules do not keep; answers their names. */
export async function pruneBackups(ctx: DirContext & Pick<PlatformContext, "log">, dir: string): Promise<string[]> {
  const names = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => BACKUP_NAME.test(n));
  const { keep_daily, keep_weekly, keep_before_upgrade } = ctx.settings.backup;
  const kept = keptBackups(
    names.filter((n) => !beforeUpgrade(n)).map((name) => ({ name, atMs: atOfName(name) })),
    keep_daily,
    keep_weekly,
    ctx.settings.app.timezone,
  );
  // The last few taken before an upgrade, whatever their day: the way back from a bad upgrade.
  const upgrades = names.filter(beforeUpgrade).map((name) => ({ name, atMs: atOfName(name) }));
  for (const { name } of upgrades.sort(newerFirst).slice(0, keep_before_upgrade)) kept.add(name);
  const gone = names.filter((n) => !kept.has(n));
  for (const name of gone) await fs.rm(path.join(dir, name), { force: true });
  if (gone.length)
    ctx.log.info({ deleted: gone }, `backup: ${gone.length} old backup(s) deleted (backup.keep_daily ${keep_daily}, backup.keep_weekly ${keep_weekly})`);
  return gone;
}
