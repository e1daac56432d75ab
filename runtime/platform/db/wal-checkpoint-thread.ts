/**
 * The WAL checkpointer's thread: its own connection to the SQLite file, copying committed
 * WAL frames into the database file every interval. A PASSIVE checkpoint waits for nobody,
 * so the service's connection keeps writing meanwhile.
 *
 * Copying alone never lets the log start over: SQLite restarts it only when a writer finds
 * every frame copied, and with commits every few milliseconds some always arrive during the
 * copy, so the log would grow until the service's connection checkpoints it inside a commit
 * (tens of ms). So the thread copies again until what arrived meanwhile is a handful of
 * frames, then tells the service (`restart-ready`), whose own connection, between two of its
 * transactions, copies that handful and marks the log for a restart: well under a
 * millisecond, and no lock to wait for, since a RESTART from this thread would make the
 * service's writer sleep in SQLite's busy handler.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
/** Frames that may arrive during the last copy and still be left for the service's connection. */
const HANDFUL = 64;
const MAX_PASSES = 5;

const db = new Database(file);
db.pragma("busy_timeout = 1000");

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const passive = (): CheckpointResult => (db.pragma("wal_checkpoint(PASSIVE)") as CheckpointResult[])[0];

const timer = setInterval(() => {
  try {
    let last = passive();
    for (let pass = 1; pass < MAX_PASSES; pass++) {
      const previous = last;
      last = passive();
      if (last.log - previous.log < HANDFUL) break;
    }
    if (last.busy === 0 && last.log > 0) parentPort?.postMessage("restart-ready");
  } catch {
    // Busy with another checkpoint, or the file is going away: the next tick tries again.
  }
}, intervalMs);

parentPort?.on("message", (msg) => {
  if (msg !== "stop") return;
  clearInterval(timer);
  db.close();
  parentPort?.postMessage("stopped");
});
