/**
 * Checkpoints of SQLite's write-ahead log, off the main thread. SQLite checkpoints from the
 * connection that commits, once the WAL passes a size, and a checkpoint writes and syncs the
 * database file; on the engine's hot path that cost more than writing the runs. A thread
 * checkpoints every second instead; the service's connection keeps a much larger automatic
 * threshold only as a safety net, in case the thread falls behind or is gone.
 */
import path from "node:path";
import { Worker } from "node:worker_threads";

/** Pages (of 4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const SAFETY_NET_PAGES = 16_384;

export interface WalCheckpointer {
  stop(): Promise<void>;
}

export function startWalCheckpointer(file: string, intervalMs = 1000): WalCheckpointer {
  const worker = new Worker(path.join(__dirname, "wal-checkpoint-thread.js"), { workerData: { file, intervalMs } });
  worker.unref();
  let stopped: Promise<void> | null = null;
  return {
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        const done = () => void worker.terminate().finally(resolve);
        worker.once("message", done);
        worker.once("error", done);
        worker.once("exit", () => resolve());
        worker.postMessage("stop");
      })),
  };
}
