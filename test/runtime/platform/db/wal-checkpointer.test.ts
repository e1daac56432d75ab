/**
 * The WAL checkpointer: while the service writes, a thread copies the log into the database
 * file, so the service's own connection never has to (its threshold is only a safety net).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { startWalCheckpointer } from "../../../../runtime/platform/db/wal-checkpointer";

describe("WAL checkpointer (SQLite)", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-wal-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("copies committed writes into the database file in the background", async () => {
    const file = path.join(dir, "c.db");
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("wal_autocheckpoint = 0");
    db.exec("create table t (v text)");
    const insert = db.prepare("insert into t values (?)");
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run("x".repeat(500));
    })();
    const before = fs.statSync(file).size;
    const checkpointer = startWalCheckpointer(file, { intervalMs: 20, startAtBytes: 100_000 });
    try {
      // The file grows as the checkpoint copies pages: wait for all of them (a loaded machine is slow).
      for (let i = 0; i < 500 && fs.statSync(file).size <= before + 500_000; i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(fs.statSync(file).size > before + 500_000, "the rows reached the database file");
      // The service writes on while checkpoints run.
      insert.run("after");
      assert.equal((db.prepare("select count(*) as n from t").get() as { n: number }).n, 2001);
    } finally {
      await checkpointer.stop();
      db.close();
    }
  });

  it("lets the log start over while the service commits every few milliseconds", async () => {
    const file = path.join(dir, "r.db");
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    // No safety net: only the checkpointer can make the log start over.
    db.pragma("wal_autocheckpoint = 0");
    db.pragma("busy_timeout = 5000");
    db.exec("create table t (v text)");
    const insert = db.prepare("insert into t values (?)");
    const commit = db.transaction(() => {
      for (let i = 0; i < 100; i++) insert.run("x".repeat(500));
    });
    const checkpointer = startWalCheckpointer(file, { intervalMs: 40, startAtBytes: 0, idleConnection: () => (db.inTransaction ? undefined : db) });
    let commits = 0;
    try {
      // Several restarts, however slowly a loaded machine runs the thread: the log's length is
      // then bounded by the longest stretch between two of them, not by what was written.
      const started = Date.now();
      while (Date.now() - started < 2000 || checkpointer.restarts < 4) {
        commit();
        commits++;
        await new Promise((r) => setTimeout(r, 3));
        if (Date.now() - started > 30_000) break;
      }
      assert.ok(checkpointer.restarts >= 4, `the log started over (${checkpointer.restarts} restarts)`);
      // Without restarts the log would hold every row written (commits × 50 kB).
      const written = commits * 100 * 500;
      assert.ok(fs.statSync(`${file}-wal`).size < written / 2, `the log stayed short: ${fs.statSync(`${file}-wal`).size} bytes for ${written} written`);
      assert.equal((db.prepare("select count(*) as n from t").get() as { n: number }).n, commits * 100);
      // The restart left the service's own busy timeout as it was.
      assert.equal(db.pragma("busy_timeout", { simple: true }), 5000);
    } finally {
      await checkpointer.stop();
      db.close();
    }
  });

  it("starts no thread while the log is small, and stops when asked, even twice", async () => {
    const file = path.join(dir, "d.db");
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.exec("create table t (v text); insert into t values ('one row')");
    const checkpointer = startWalCheckpointer(file, { intervalMs: 20, startAtBytes: 1_000_000 });
    // sleep-ok: the watch is a real-time interval (a thread's timing, no app clock); five of its looks pass.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(checkpointer.started, false);
    await checkpointer.stop();
    await checkpointer.stop();
    db.close();
  });
});
