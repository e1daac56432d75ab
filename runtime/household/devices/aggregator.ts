/**
 * The camera event aggregator, per sensor (spec "Limits", reference "Camera ingest and
 * aggregation"): the first stored frame opens a batch and starts a `window_seconds` timer;
 * the batch flushes when the timer fires or at once when it holds `batch_size` frames. Then
 * the sensor cools down for `cooldown_seconds`: frames are stored but start no batch.
 * A flushed batch is one `sensor.event` on the bus (kind `camera_batch`) with the batch's
 * frames, which fires the sensor's `sensor_event` rules.
 *
 * Batches are rows of `ingest_batches`. A flush first claims its row (open → flushed) and
 * only then publishes, so a batch fires at most once. At start, batches left open by a
 * process that died are resumed by one recorded rule (docs/decisions.md): a batch whose window
 * is still running waits for the rest of it; one whose window has passed flushes at once
 * with the frames it had. Timers run on the app's clock. With several instances the batches
 * live in the store alone and the windows end on the `aggregator` lease holder (shared-batches.ts).
 */
import type { PlatformContext } from "../../platform/context";
import { clustered } from "../../platform/cluster/adopt";
import { isoAt } from "../../platform/core/clock";
import { closeBatch, insertBatch, lastFlushes, openBatches, updateBatchFrames, type BatchRow } from "./ingest-batches.store";
import type { AddOutcome, AggregatedFrame } from "./aggregated-frame";
import { publishBatch, SharedBatches } from "./shared-batches";

export type AggregatorContext = Pick<PlatformContext, "db" | "clock" | "settings" | "log" | "bus" | "cluster">;

export type { AddOutcome, AggregatedFrame } from "./aggregated-frame";

interface OpenBatch {
  id: number;
  room_name: string | null;
  media_ids: number[];
  media_paths: string[];
  cancel: () => void;
}

interface SensorState {
  open: OpenBatch | null;
  cooldownUntil: number;
  /** Work on one sensor runs in order: frames, timers and flushes never interleave. */
  tail: Promise<unknown>;
}

export class FrameAggregator {
  private readonly sensors = new Map<string, SensorState>();
  private readonly inflight = new Set<Promise<unknown>>();
  private stopped = false;
  /** Several instances: every batch is shared through the store instead. */
  private readonly shared: SharedBatches | null;

  constructor(private readonly ctx: AggregatorContext) {
    this.shared = clustered(ctx) ? new SharedBatches(ctx) : null;
  }

  private get cfg() {
    return this.ctx.settings.aggregator;
  }

  private state(sensorId: string): SensorState {
    let s = this.sensors.get(sensorId);
    if (!s) this.sensors.set(sensorId, (s = { open: null, cooldownUntil: -Infinity, tail: Promise.resolve() }));
    return s;
  }

  /** Runs `fn` after the sensor's earlier work; tracked so `idle()` and `stop()` can wait for it. */
  private serial<T>(sensorId: string, fn: (s: SensorState) => Promise<T>): Promise<T> {
    const s = this.state(sensorId);
    const run = s.tail.then(
      () => fn(s),
      () => fn(s),
    );
    s.tail = run.catch(() => undefined);
    const tracked = run.catch(() => undefined).finally(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
    return run;
  }

  /** Resumes the batches a previous process left open, and the cooldowns still running. */
  async start(): Promise<void> {
    if (this.shared) return this.shared.start();
    const now = this.ctx.clock.now();
    const cooldownMs = this.cfg.cooldown_seconds * 1000;
    for (const f of await lastFlushes(this.ctx.db, isoAt(now - cooldownMs))) {
      this.state(f.sensor_id).cooldownUntil = Date.parse(f.closed_at) + cooldownMs;
    }
    for (const row of await openBatches(this.ctx.db)) this.resume(row);
  }

  private resume(row: BatchRow): void {
    const s = this.state(row.sensor_id);
    s.open = { id: row.id, room_name: row.room_name, media_ids: row.media_ids, media_paths: row.media_paths, cancel: () => undefined };
    const due = Date.parse(row.due_at);
    this.ctx.log.info({ sensor_id: row.sensor_id, batch_id: row.id, frames: row.media_ids.length, due_at: row.due_at }, "camera batch resumed after a restart");
    this.arm(row.sensor_id, s.open, Number.isFinite(due) ? due : this.ctx.clock.now());
  }

  /** A frame was stored: it joins the sensor's open batch, opens one, or only counts as cooled down. */
  add(frame: AggregatedFrame): Promise<AddOutcome> {
    if (!this.cfg.enabled) return Promise.resolve("off");
    if (this.shared) return this.shared.add(frame);
    return this.serial(frame.sensor_id, async (s) => {
      if (this.stopped) return "off";
      const now = this.ctx.clock.now();
      if (!s.open) {
        if (now < s.cooldownUntil) return "cooldown";
        const due = now + this.cfg.window_seconds * 1000;
        const id = await insertBatch(this.ctx.db, {
          sensor_id: frame.sensor_id,
          room_name: frame.room_name,
          opened_at: isoAt(now),
          due_at: isoAt(due),
          media_ids: [frame.media_id],
          media_paths: [frame.path],
        });
        s.open = { id, room_name: frame.room_name, media_ids: [frame.media_id], media_paths: [frame.path], cancel: () => undefined };
        if (this.cfg.batch_size <= 1) return (await this.flush(frame.sensor_id, s, "batch_size")) ? "flushed" : "opened";
        this.arm(frame.sensor_id, s.open, due);
        return "opened";
      }
      s.open.media_ids.push(frame.media_id);
      s.open.media_paths.push(frame.path);
      if (s.open.media_ids.length >= this.cfg.batch_size) return (await this.flush(frame.sensor_id, s, "batch_size")) ? "flushed" : "added";
      await updateBatchFrames(this.ctx.db, s.open.id, s.open.media_ids, s.open.media_paths);
      return "added";
    });
  }

  private arm(sensorId: string, batch: OpenBatch, dueMs: number): void {
    batch.cancel = this.ctx.clock.at(dueMs, () => {
      void this.serial(sensorId, async (s) => {
        if (s.open === batch) await this.flush(sensorId, s, "window");
      }).catch((err: unknown) => this.ctx.log.error({ err, sensor_id: sensorId }, "flushing a camera batch failed"));
    });
  }

  /** Claims the open batch and publishes it; the sensor then cools down. */
  private async flush(sensorId: string, s: SensorState, reason: "window" | "batch_size"): Promise<boolean> {
    const batch = s.open;
    if (!batch) return false;
    batch.cancel();
    s.open = null;
    const now = this.ctx.clock.now();
    s.cooldownUntil = now + this.cfg.cooldown_seconds * 1000;
    // The frames as this process holds them (the row may lag by the frame that filled the batch).
    await updateBatchFrames(this.ctx.db, batch.id, batch.media_ids, batch.media_paths);
    const row = await closeBatch(this.ctx.db, batch.id, "flushed", isoAt(now), reason);
    if (!row) return false;
    publishBatch(this.ctx, { id: batch.id, sensor_id: sensorId, room_name: batch.room_name, media_paths: batch.media_paths }, reason);
    return true;
  }

  /** Batches open now, by sensor; for diagnostics and tests (one instance: with several they are only in the store). */
  openBatches(): Map<string, { batch_id: number; frames: number }> {
    const out = new Map<string, { batch_id: number; frames: number }>();
    for (const [id, s] of this.sensors) if (s.open) out.set(id, { batch_id: s.open.id, frames: s.open.media_ids.length });
    return out;
  }

  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
    await this.shared?.idle();
  }

  /** Stops the timers; open batches stay open in the store and are resumed by the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.shared?.stop();
    for (const s of this.sensors.values()) s.open?.cancel();
    await this.idle();
  }
}
