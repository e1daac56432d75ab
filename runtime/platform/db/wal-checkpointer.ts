/**
 * Checkpoints of SQLite's write-ahead log, off the main thread. SQLite checkpoints from the
 * connection that commits, once the WAL passes a size, and a checkpoint writes and syncs the
 * database file; on the engine's hot path that cost more than writing the runs. A thread
 * checkpoints every second instead. It starts only once the log has grown past a few MB (a
 * thread costs memory an idle household should not pay); the service's connection keeps a
 * much larger automatic threshold as a safety net, in case the thread falls behind or is gone.
 *
 * When the thread has copied nearly everything, the service's own connection finishes the
 * job between two of its transactions, so the log starts over instead of growing until the
 * safety net checkpoints it inside a commit (wal-checkpoint-thread.ts says why the thread
 * cannot do this part itself).
 */
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";

/** Pages (of 4 KiB) the WAL may reach before the service's own connection checkpoints. */
export const SAFETY_NET_PAGES = 16_384;
const IDLE_RETRY_MS = 2;
const IDLE_TRIES = 100;

/** What the restart needs of the service's connection (better-sqlite3's Database). */
export interface PragmaConnection {
  pragma(source: string, options?: { simple: boolean }): unknown;
}

export interface WalCheckpointerOptions {
  intervalMs?: number;
  /** Start the thread once the WAL file is larger than this. */
  startAtBytes?: number;
  /**
   * The service's connection when no query or transaction holds it (idle-sqlite.ts); absent,
   * the log is only copied and the safety net restarts it.
   */
  idleConnection?: () => PragmaConnection | undefined;
}

export interface WalCheckpointer {
  /** Whether the thread is running. */
  readonly started: boolean;
  /** Log restarts the service's connection made (for tests and the bench). */
  readonly restarts: number;
  stop(): Promise<void>;
}

export function startWalCheckpointer(file: string, opts: WalCheckpointerOptions = {}): WalCheckpointer {
  const intervalMs = opts.intervalMs ?? 1000;
  const startAtBytes = opts.startAtBytes ?? 4 * 1024 * 1024;
  let worker: Worker | null = null;
  let stopped: Promise<void> | null = null;
  let restarts = 0;

  const walBytes = (): number => {
    try {
      return fs.statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  };

  /** Waits (a few ms at a time, never blocking) for a moment between transactions, then restarts. */
  const restartWhenIdle = (tries: number): void => {
    if (stopped || !opts.idleConnection) return;
    const conn = opts.idleConnection();
    if (!conn) {
      if (tries > 1) setTimeout(() => restartWhenIdle(tries - 1), IDLE_RETRY_MS).unref();
      return;
    }
    // No busy timeout: should anything else hold the log (the thread's next copy, another
    // process reading), the restart gives way at once and the next second tries again;
    // waiting would stall the service's thread.
    let busyTimeout: unknown;
    try {
      busyTimeout = conn.pragma("busy_timeout", { simple: true });
      conn.pragma("busy_timeout = 0");
      const [result] = conn.pragma("wal_checkpoint(RESTART)") as { busy: number }[];
      if (result?.busy === 0) restarts++;
    } catch {
      // A closing connection: nothing to restart.
    } finally {
      try {
        if (typeof busyTimeout === "number") conn.pragma(`busy_timeout = ${busyTimeout}`);
      } catch {
        // closed meanwhile
      }
    }
  };

  const watch = setInterval(() => {
    if (worker || walBytes() <= startAtBytes) return;
    clearInterval(watch);
    worker = new Worker(path.join(__dirname, "wal-checkpoint-thread.js"), { workerData: { file, intervalMs } });
    worker.unref();
    worker.on("message", (msg) => {
      if (msg === "restart-ready") restartWhenIdle(IDLE_TRIES);
    });
  }, intervalMs);
  watch.unref();

  return {
    get started() {
      return worker !== null;
    },
    get restarts() {
      return restarts;
    },
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        clearInterval(watch);
        const w = worker;
        if (!w) return resolve();
        const done = () => void w.terminate().finally(resolve);
        w.on("message", (msg) => msg === "stopped" && done());
        w.once("error", done);
        w.once("exit", () => resolve());
        w.postMessage("stop");
      })),
  };
}
