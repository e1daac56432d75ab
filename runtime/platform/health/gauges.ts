/**
 * The process's own parts, measured on the board's tick: a database write's latency, the free
 * space of the data dir, and the event loop's lag. Thresholds are in docs/decisions.md
 * ("Parts and their states").
 */
import { statfs } from "node:fs/promises";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Knex } from "knex";
import type { Clock } from "../core/clock";
import { isoNow } from "../core/clock";
import { kvSet } from "../db/kv";
import type { GaugeReading, PartsBoard } from "./parts-board";

export const DB_WRITE_LATE_MS = 1_000;
export const DISK_LATE_BYTES = 1024 ** 3;
export const DISK_DOWN_BYTES = 256 * 1024 ** 2;
export const LOOP_LAG_LATE_MS = 250;
export const LOOP_LAG_DOWN_MS = 2_000;

const MIB = 1024 ** 2;

/** Free bytes for an unprivileged writer (bavail, not bfree: root's reserve is not ours). */
export type FreeSpaceReader = (dir: string) => Promise<number>;
export const statfsFree: FreeSpaceReader = async (dir) => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

export function judgeDiskFree(free: number): GaugeReading {
  const detail = `${Math.round(free / MIB)} MiB free`;
  if (free < DISK_DOWN_BYTES) return { state: "down", detail };
  return { state: free < DISK_LATE_BYTES ? "late" : "ok", detail };
}

export interface GaugeSources {
  db: Knex;
  clock: Clock;
  dataDir: string;
  freeSpace?: FreeSpaceReader;
}

/** Adds the three gauges; returns the stop of the event-loop monitor. */
export function addProcessGauges(board: PartsBoard, src: GaugeSources): () => void {
  board.gauge("database", "database", "Database", async () => {
    // Wall time, not the app's clock: a latency is a real duration even in a test.
    const started = performance.now();
    await kvSet(src.db, "health.last_write", isoNow(src.clock), isoNow(src.clock));
    const ms = Math.round(performance.now() - started);
    return { state: ms > DB_WRITE_LATE_MS ? "late" : "ok", detail: `a write took ${ms} ms` };
  });
  const freeSpace = src.freeSpace ?? statfsFree;
  board.gauge("disk", "disk", "Free disk of the data dir", async () => judgeDiskFree(await freeSpace(src.dataDir)));
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  board.gauge("event_loop", "event_loop", "Event loop", () => {
    // The worst lag since the last tick (p99, so one GC pause does not count), then a fresh window.
    const p99 = loop.count > 0 ? Math.round(loop.percentile(99) / 1e6) : 0;
    loop.reset();
    const state = p99 >= LOOP_LAG_DOWN_MS ? "down" : p99 >= LOOP_LAG_LATE_MS ? "late" : "ok";
    return Promise.resolve({ state, detail: `p99 lag ${p99} ms` });
  });
  return () => loop.disable();
}
