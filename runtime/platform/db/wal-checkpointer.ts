/**
 * Checkpoints of SQLite's write-ahead log, off the main thread. SQLite checkpoints from the
 * connection that commits, once the WAL passes a size, and a checkpoint writes and syncs the
 * database file; on the engine's hot path that cost more than writing the runs. A thread
 * checkpoints every second instead. It starts only once the log has grown past a few MB (a
 * thread costs memory an idle household should not pay); the service's connection keeps a
 * much larger automatic threshold as a safety net, in case the thread falls behind or is gone.
 */
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";

/** Pages (of 4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const SAFETY_NET_PAGES = 16_384;

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /** Start the thread once the WAL file is larger than this. */
  startAtBytes?: number;
}

export interface WalCheckpointer {
  /** Whether the thread is running. */
  readonly started: boolean;
  stop(): Promise<void>;
}

export function startWalCheckpointer(file: string, opts: WalCheckpointerOptions = {}): WalCheckpointer {
  const intervalMs = opts.intervalMs ?? 1000;
  const startAtBytes = opts.startAtBytes ?? 4 * 1024 * 1024;
  let worker: Worker | null = null;
  let stopped: Promise<void> | null = null;

  const walBytes = (): number => {
    try {
      return fs.statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  };
  const watch = setInterval(() => {
    if (worker || walBytes() <= startAtBytes) return;
    clearInterval(watch);
    worker = new Worker(path.join(__dirname, "wal-checkpoint-thread.js"), { workerData: { file, intervalMs } });
    worker.unref();
  }, intervalMs);
  watch.unref();

  return {
    get started() {
      return worker !== null;
    },
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        clearInterval(watch);
        const w = worker;
        if (!w) return resolve();
        const done = () => void w.terminate().finally(resolve);
        w.once("message", done);
        w.once("error", done);
        w.once("exit", () => resolve());
        w.postMessage("stop");
      })),
  };
}
