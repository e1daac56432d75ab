/**
 * The camera aggregator with several instances (docs/cluster.md): frames of one sensor may be
 * posted to any instance, so its batch lives in `ingest_batches` alone, never in memory. Each
 * frame is one transaction under the sensor's advisory lock: it joins the open batch, opens one
 * (unless the last flush is within the cooldown), or fills it and flushes it, on the instance
 * that received it. A window that ends with no more frames is flushed by the holder of the
 * `aggregator` lease, which reads the open batches every second and wakes at the earliest due;
 * a new holder flushes at once those left due by one that died, with every frame stored in
 * their rows. A flush claims its row (open → flushed) before publishing, so it fires once.
 */
import type { PlatformContext } from "../../platform/context";
import { ADOPT_EVERY_MS, repeatOnClock } from "../../platform/cluster/adopt";
import { leasesOf } from "../../platform/cluster/cluster";
import { whileHolding } from "../../platform/cluster/leases";
import { isoAt } from "../../platform/core/clock";
import type { AddOutcome, AggregatedFrame } from "./aggregated-frame";
import { closeBatch, insertBatch, lastFlushOf, lockSensorBatches, openBatchOf, openBatches, updateBatchFrames, type BatchRow } from "./ingest-batches.store";

export type SharedBatchesContext = Pick<PlatformContext, "db" | "clock" | "settings" | "log" | "bus" | "cluster">;

type Reason = "window" | "batch_size";

/** A flushed batch becomes one `camera_batch` event, which fires the sensor's rules. */
export function publishBatch(
  ctx: Pick<PlatformContext, "bus" | "log">,
  b: { id: number; sensor_id: string; room_name: string | null; media_paths: readonly string[] },
  reason: Reason,
): void {
  ctx.log.debug({ sensor_id: b.sensor_id, batch_id: b.id, frames: b.media_paths.length, reason }, "camera batch ready");
  ctx.bus.publish("sensor.event", {
    kind: "camera_batch",
    sensor_id: b.sensor_id,
    room_name: b.room_name,
    media_paths: [...b.media_paths],
    media_type: "image/jpeg",
    batch_id: b.id,
  });
}

export class SharedBatches {
  private readonly inflight = new Set<Promise<unknown>>();
  private stopFlusher: (() => Promise<void>) | null = null;
  private stopped = false;

  constructor(private readonly ctx: SharedBatchesContext) {}

  private get cfg() {
    return this.ctx.settings.aggregator;
  }

  start(): void {
    this.stopFlusher = whileHolding(leasesOf(this.ctx), "aggregator", () =>
      repeatOnClock(
        this.ctx.clock,
        ADOPT_EVERY_MS,
        () => this.track(this.flushDue()),
        (err) => this.ctx.log.error({ err }, "flushing due camera batches failed"),
      ),
    );
  }

  add(frame: AggregatedFrame): Promise<AddOutcome> {
    if (!this.cfg.enabled || this.stopped) return Promise.resolve("off");
    return this.track(this.addFrame(frame));
  }

  private async addFrame(frame: AggregatedFrame): Promise<AddOutcome> {
    const flushed: Array<{ row: BatchRow; reason: Reason }> = [];
    const outcome = await this.ctx.db.transaction(async (trx): Promise<AddOutcome> => {
      await lockSensorBatches(trx, frame.sensor_id);
      const now = this.ctx.clock.now();
      const close = async (id: number, reason: Reason): Promise<boolean> => {
        const row = await closeBatch(trx, id, "flushed", isoAt(now), reason);
        if (row) flushed.push({ row, reason });
        return !!row;
      };
      let open = await openBatchOf(trx, frame.sensor_id);
      // Its window ended before this frame (the holder has not flushed it yet): flushed first, as its timer would have.
      if (open && Date.parse(open.due_at) <= now) {
        await close(open.id, "window");
        open = null;
      }
      if (open) {
        const ids = [...open.media_ids, frame.media_id];
        const paths = [...open.media_paths, frame.path];
        await updateBatchFrames(trx, open.id, ids, paths);
        if (ids.length < this.cfg.batch_size) return "added";
        return (await close(open.id, "batch_size")) ? "flushed" : "added";
      }
      const last = await lastFlushOf(trx, frame.sensor_id);
      if (last && now < Date.parse(last) + this.cfg.cooldown_seconds * 1000) return "cooldown";
      const id = await insertBatch(trx, {
        sensor_id: frame.sensor_id,
        room_name: frame.room_name,
        opened_at: isoAt(now),
        due_at: isoAt(now + this.cfg.window_seconds * 1000),
        media_ids: [frame.media_id],
        media_paths: [frame.path],
      });
      if (this.cfg.batch_size <= 1) return (await close(id, "batch_size")) ? "flushed" : "opened";
      return "opened";
    });
    // Published once committed: a batch claimed by a transaction that failed stays open.
    for (const f of flushed) publishBatch(this.ctx, f.row, f.reason);
    return outcome;
  }

  /** The holder's round: flushes the batches whose window has ended; returns when the next one ends. */
  private async flushDue(): Promise<number | void> {
    let next: number | undefined;
    for (const open of await openBatches(this.ctx.db)) {
      if (this.stopped) return;
      const due = Date.parse(open.due_at);
      if (due > this.ctx.clock.now()) {
        next = next === undefined ? due : Math.min(next, due);
        continue;
      }
      const row = await this.ctx.db.transaction(async (trx) => {
        await lockSensorBatches(trx, open.sensor_id);
        return closeBatch(trx, open.id, "flushed", isoAt(this.ctx.clock.now()), "window");
      });
      if (row) publishBatch(this.ctx, row, "window");
    }
    return next;
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const tracked = work.catch(() => undefined).finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
    return work;
  }

  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Stops flushing; open batches stay in the store for the next holder. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopFlusher?.();
    await this.idle();
  }
}
