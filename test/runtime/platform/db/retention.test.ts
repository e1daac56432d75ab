/**
 * Retention of what people said to the voice companion and of camera sightings (their owners'
 * prune functions, at their default days), on a manual clock against a fresh database: older
 * rows go, newer stay; and the helper the tracking tables still use: a prune that fails is
 * logged, not thrown, and stopping ends a prune under way. The retention job: retention-job.test.ts.
 */
import assert from "node:assert/strict";
import type { Knex } from "knex";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { openStore } from "../../../../runtime/platform/db/store";
import { pruneOnce, startRetention, type Retention } from "../../../../runtime/platform/db/retention";
import { pruneTurnsBefore, recentTurns, saveTurn } from "../../../../runtime/household/voice-turns/voice-turns.store";
import { listSightings, pruneSightingsBefore, recordSighting } from "../../../../runtime/household/tracking/sightings.store";
import { migratedDatabase } from "../../../support/test-db";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const daysAgo = (d: number): string => new Date(NOW - d * 86400_000).toISOString();

describe("retention: voice turns and sightings", function () {
  this.timeout(30_000);
  let db: Knex;
  let drop: () => Promise<void>;
  const ctx = { clock: new ManualClock(NOW), log: createLogger("silent") };

  before(async () => {
    const fresh = await migratedDatabase();
    const store = await openStore(fresh.databaseUrl, fresh.dataDir);
    db = store.db;
    drop = async () => {
      await store.close();
      await fresh.drop();
    };
  });
  after(() => drop());

  it("deletes what was said more than 30 days ago and keeps the rest", async () => {
    for (const [text, at] of [
      ["old", daysAgo(31)],
      ["recent", daysAgo(29)],
      ["today", daysAgo(0)],
    ] as const)
      await saveTurn(db, { session_id: "voice-1", role: "user", text, at, reason: "senior", execution_id: null, step_id: null });
    assert.equal(await pruneTurnsBefore(db, daysAgo(30), 100), 1);
    assert.deepEqual(
      (await recentTurns(db, { limit: 10 })).map((t) => t.text),
      ["recent", "today"],
    );
  });

  it("deletes sightings older than 90 days and keeps the rest", async () => {
    for (const [person_id, timestamp] of [
      ["rose", daysAgo(91)],
      ["rose", daysAgo(89)],
      ["visitor-3", daysAgo(120)],
    ] as const)
      await recordSighting(db, {
        person_id,
        person_name: null,
        visitor: person_id.startsWith("visitor"),
        sensor_id: "kitchen_cam",
        room_name: "kitchen",
        confidence: 0.8,
        bbox: [1, 2, 3, 4],
        media_path: null,
        direction_raw: null,
        direction_semantic: null,
        timestamp,
      });
    assert.equal(await pruneSightingsBefore(db, daysAgo(90), 100), 2);
    assert.deepEqual(
      (await listSightings(db, "rose", 10)).map((s) => s.timestamp),
      [daysAgo(89)],
    );
    assert.deepEqual(await listSightings(db, "visitor-3", 10), []);
  });

  it("a prune that fails is logged and answers 0, never throws", async () => {
    const failing = { what: "things", days: 1, deleteBefore: () => Promise.reject(new Error("disk gone")) };
    assert.equal(await pruneOnce(ctx, failing), 0);
  });

  it("a stop ends a prune under way instead of waiting for all of it", async () => {
    // A prune that would run until told to stop: the service's stop must not wait for it.
    let signal: AbortSignal | undefined;
    const endless: Retention = {
      what: "probe rows",
      days: 1,
      deleteBefore: (_cutoff, s) =>
        new Promise<number>((resolve) => {
          signal = s;
          s?.addEventListener("abort", () => resolve(0));
        }),
    };
    const stop = startRetention(ctx, endless);
    for (let i = 0; i < 100 && !signal; i++) await new Promise((r) => setImmediate(r));
    assert.ok(signal, "the prune started at once");
    assert.equal(signal.aborted, false);
    await stop();
    assert.equal(signal.aborted, true);
  });
});
