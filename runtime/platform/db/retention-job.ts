/**
 * The retention job (docs/retention.md): every growing table's rows older than its
 * `retention.*` days deleted, five minutes after start and then hourly on the app's clock, on the one instance
 * holding the lease `retention`. Each table's owner deletes its own rows a batch at a time
 * (`prune…Before(db, cutoff, limit)`), so no statement holds the store for long; between two
 * batches the thread takes its turn at everything else. The objects the deleted rows named go
 * too, unless a kept row still names them; then the store gives the space back
 * (sqlite-space.ts). A table whose prune fails is logged and tried again at the next hour,
 * the others go on; a stop ends a prune under way between two batches.
 */
import type { PlatformContext } from "../context";
import { leasesOf, type Cluster } from "../cluster/cluster";
import { whileHolding } from "../cluster/leases";
import { isoAt } from "../core/clock";

export const RETENTION_EVERY_MS = 3_600_000;
/** The first round after taking the lease: the start's own catching up (recovery, missed reports) first. */
export const RETENTION_FIRST_AFTER_MS = 5 * 60_000;
export const RETENTION_LEASE = "retention";
/** Rows per statement: a few ms each on SQLite. */
export const PRUNE_BATCH = 2000;
/** Between two statements (delete-before.ts says why). */
const PAUSE_MS = 25;

/** What one batch deleted: how many rows, and the media objects they named. */
export interface PruneBatch {
  rows: number;
  media?: readonly string[];
}

/** One growing table (or tables pruned together) as the job sees it. */
export interface RetainedTable {
  /** For the log and the docs: "runs". */
  what: string;
  /** The setting it reads, for the log: "retention.runs_days". */
  setting: string;
  /** 0: kept for ever. */
  days: number;
  /** Deletes at most `limit` rows older than the cutoff (ISO-8601 UTC). */
  prune(cutoffIso: string, limit: number): Promise<PruneBatch>;
  /** The latest cutoff allowed now, whatever `days` says (what the daily reports still read). */
  notAfter?(nowMs: number): string;
  /** Which of `names` its kept rows still name. */
  namedBy?(names: readonly string[]): Promise<Set<string>>;
}

export interface RetentionPlan {
  tables: readonly RetainedTable[];
  /** Deletes the objects pruned rows named, unless `keptByRows` (or the media store) still needs them; answers how many went. */
  deleteMedia(names: readonly string[], keptByRows: (names: readonly string[]) => Promise<Set<string>>): Promise<number>;
  /** After a prune that deleted rows: give the space back (SQLite's incremental vacuum). */
  giveSpaceBack(signal?: AbortSignal): Promise<void>;
}

export interface RetentionReport {
  /** Rows deleted, by `what`. */
  rows: Record<string, number>;
  media: number;
}

type JobContext = Pick<PlatformContext, "clock" | "log"> & { cluster?: Pick<Cluster, "leases"> };

/** The cutoff of `table` as at `nowMs`, or null when it keeps its rows for ever. */
export function cutoffOf(table: Pick<RetainedTable, "days" | "notAfter">, nowMs: number): string | null {
  if (table.days <= 0) return null;
  const byDays = isoAt(nowMs - table.days * 86_400_000);
  const floor = table.notAfter?.(nowMs);
  return floor !== undefined && floor < byDays ? floor : byDays;
}

/** Prunes every table once now; answers what went. */
export async function pruneAll(ctx: JobContext, plan: RetentionPlan, signal?: AbortSignal): Promise<RetentionReport> {
  const report: RetentionReport = { rows: {}, media: 0 };
  const media = new Set<string>();
  const now = ctx.clock.now();
  for (const table of plan.tables) {
    const cutoff = cutoffOf(table, now);
    if (cutoff === null || signal?.aborted) continue;
    let total = 0;
    try {
      for (;;) {
        const batch = await table.prune(cutoff, PRUNE_BATCH);
        total += batch.rows;
        for (const name of batch.media ?? []) media.add(name);
        if (batch.rows < PRUNE_BATCH || signal?.aborted) break;
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    } catch (err) {
      ctx.log.warn({ err, table: table.what }, `retention: pruning ${table.what} failed; tried again in an hour`);
    }
    report.rows[table.what] = total;
    if (total) ctx.log.info({ rows: total, cutoff }, `retention: ${table.what} older than ${table.days} days deleted (${table.setting})`);
  }
  if (media.size) {
    const keptByRows = async (names: readonly string[]): Promise<Set<string>> => {
      const kept = new Set<string>();
      for (const t of plan.tables) if (t.namedBy) for (const n of await t.namedBy(names)) kept.add(n);
      return kept;
    };
    try {
      report.media = await plan.deleteMedia([...media], keptByRows);
      if (report.media) ctx.log.info({ objects: report.media }, "retention: the media of deleted rows deleted");
    } catch (err) {
      ctx.log.warn({ err }, "retention: deleting the media of deleted rows failed; the media sweep deletes what nothing names");
    }
  }
  if (Object.values(report.rows).some((n) => n > 0) && !signal?.aborted) {
    await plan.giveSpaceBack(signal).catch((err: unknown) => ctx.log.warn({ err }, "retention: giving the space back failed"));
  }
  return report;
}

export interface RetentionJob {
  /** Resolves when the round under way (on this instance) has finished; for tests. */
  idle(): Promise<void>;
  /** Rounds this instance has run. */
  rounds(): number;
  stop(): Promise<void>;
}

/**
 * Prunes five minutes after taking the lease, then hourly, on the instance holding the lease `retention` (every instance would
 * delete the same rows: once is enough). `plan` is read at each round. `stop` gives the lease
 * up and waits for a prune under way, ended at its next batch.
 */
export function startRetentionJob(ctx: JobContext, plan: () => RetentionPlan): RetentionJob {
  let running: Promise<unknown> = Promise.resolve();
  let rounds = 0;
  const stop = whileHolding(leasesOf(ctx), RETENTION_LEASE, () => {
    const stopping = new AbortController();
    let cancel: (() => void) | undefined;
    const round = (): void => {
      if (stopping.signal.aborted) return;
      rounds++;
      running = pruneAll(ctx, plan(), stopping.signal)
        .catch((err: unknown) => ctx.log.error({ err }, "retention: the round failed"))
        // The next round an hour after this one ended; a background timer: the job's own beat.
        .then(() => {
          if (!stopping.signal.aborted) cancel = ctx.clock.at(ctx.clock.now() + RETENTION_EVERY_MS, round, { background: true });
        });
    };
    cancel = ctx.clock.at(ctx.clock.now() + RETENTION_FIRST_AFTER_MS, round, { background: true });
    return async () => {
      stopping.abort();
      cancel?.();
      await running;
    };
  });
  return { idle: async () => void (await running), rounds: () => rounds, stop };
}
