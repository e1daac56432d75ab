/**
 * Rows kept for a fixed while and then deleted (the input journal, the tracking streams'
 * bookkeeping, occupancy claims; the `retention.*` tables are the retention job's,
 * retention-job.ts): pruned at start and then hourly, by the age the app's clock gives them (with
 * several instances, by the one holding the sweep's lease). A prune
 * that fails is logged and tried again at the next hour; it never stops the app, and a stop
 * ends a prune under way between two of its statements (platform/db/delete-before).
 */
import type { PlatformContext } from "../context";
import { leasesOf } from "../cluster/cluster";
import { whileHolding } from "../cluster/leases";

const EVERY_MS = 3600_000;

export interface Retention {
  /** What is pruned, for the log ("voice turns"). */
  what: string;
  days: number;
  /** Deletes the rows older than the cutoff (ISO-8601 UTC); returns how many. `signal`: stop soon, the service is stopping. */
  deleteBefore(cutoffIso: string, signal?: AbortSignal): Promise<number>;
}

/** Prunes once now; returns how many rows went. */
export async function pruneOnce(ctx: Pick<PlatformContext, "clock" | "log">, r: Retention, signal?: AbortSignal): Promise<number> {
  const cutoff = new Date(ctx.clock.now() - r.days * 86400_000).toISOString();
  try {
    const n = await r.deleteBefore(cutoff, signal);
    if (n) ctx.log.info({ rows: n, cutoff }, `${r.what}: older than ${r.days} days deleted`);
    return n;
  } catch (err) {
    ctx.log.warn({ err }, `${r.what}: pruning failed; tried again in an hour`);
    return 0;
  }
}

/**
 * Prunes now and hourly, on the one instance holding the lease `retention:<what>` (every
 * instance prunes the same rows: once is enough); the returned stop waits for a prune under way.
 */
export function startRetention(ctx: Pick<PlatformContext, "clock" | "log" | "cluster">, r: Retention): () => Promise<void> {
  return whileHolding(leasesOf(ctx), `retention:${r.what}`, () => pruneHourly(ctx, r));
}

function pruneHourly(ctx: Pick<PlatformContext, "clock" | "log">, r: Retention): () => Promise<void> {
  const stopping = new AbortController();
  let running = pruneOnce(ctx, r, stopping.signal);
  const timer = setInterval(() => {
    running = running.then(() => pruneOnce(ctx, r, stopping.signal));
  }, EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  };
}
