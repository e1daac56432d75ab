/**
 * The WAL checkpointer's thread: its own connection to the SQLite file, copying committed
 * WAL frames into the database file every interval. A PASSIVE checkpoint waits for nobody,
 * so the service's connection keeps writing meanwhile.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
db.pragma("busy_timeout = 1000");

const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
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
