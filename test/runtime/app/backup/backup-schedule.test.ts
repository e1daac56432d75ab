/**
 * Scheduled backups and their part of the health board (issue 46 §2, docs/backups.md): a backup
 * at `backup.schedule` on the app's clock, the old ones pruned by keep_daily / keep_weekly, and
 * the Backups part ok while they work, down (a `part.changed` the family's rule hears) when one
 * is missed or fails, and ok again after the next that works.
 */
import assert from "node:assert/strict";
import type { PartChangeEvent } from "../../../../runtime/platform/core/event-bus";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { kvSet } from "../../../../runtime/platform/db/kv";
import { keptBackups } from "../../../../runtime/app/backup/backup-files";
import { eventually } from "../../../support/eventually";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("scheduled backups and the Backups part", function () {
  this.timeout(60_000);
  const clock = new ManualClock(Date.parse("2026-01-05T09:00:00Z"));
  let t: TestApp;
  const changes: PartChangeEvent[] = [];
  const part = async () => {
    await t.app.ctx.parts!.sample();
    return (await t.get("/api/v1/admin/health/parts")).body.parts.find((p: { id: string }) => p.id === "backup");
  };
  const names = async (): Promise<string[]> => (await t.get("/api/v1/admin/backups")).body.backups.map((b: { name: string }) => b.name);

  before(async () => {
    t = await startTestApp({ clock, settings: { backup: { schedule: "30 3 * * *", keep_daily: 2, keep_weekly: 1 } } });
    t.app.ctx.bus.subscribe("part.changed", (c) => void (c.part_id === "backup" && changes.push(c)));
  });
  after(() => t?.close());

  it("waits for the first scheduled backup, then makes one at each time and keeps what the rules keep", async () => {
    const first = await part();
    assert.deepEqual([first.kind, first.name, first.state, first.detail], ["backup", "Backups", "ok", "no backup yet; the first is due at 2026-01-06 03:30"]);
    const before = (await t.get("/api/v1/admin/backups")).body;
    assert.deepEqual(
      [before.next_at, before.schedule, before.state, before.detail, before.under_way, before.last_ok],
      ["2026-01-06T03:30:00.000Z", "30 3 * * *", "ok", first.detail, false, null],
    );
    for (const day of ["06", "07", "08"]) {
      clock.set(Date.parse(`2026-01-${day}T03:30:00Z`));
      await eventually(`the backup of Jan ${day}`, async () => (await names()).includes(`careflow-202601${day}-033000Z.cfbackup`));
      // Done, pruning included, before the next day's is due (one backup at a time: a tick during it is refused).
      await eventually(`the backup of Jan ${day} done`, async () => (await t.get("/api/v1/admin/backups")).body.under_way === false);
    }
    // keep_daily 2: Jan 8 and 7; keep_weekly 1: the newest of the week, Jan 8 again.
    await eventually("Jan 6 pruned", async () => (await names()).length === 2);
    assert.deepEqual(await names(), ["careflow-20260108-033000Z.cfbackup", "careflow-20260107-033000Z.cfbackup"]);
    const list = (await t.get("/api/v1/admin/backups")).body;
    assert.equal(list.backups[0].made_by, "scheduled");
    assert.equal(list.last_ok.name, "careflow-20260108-033000Z.cfbackup");
    const ok = await part();
    assert.equal(ok.state, "ok");
    assert.match(ok.detail, /^the last backup: 2026-01-08 03:30, \d+\.\d MiB$/);
  });

  it("is down when a scheduled backup was missed, and ok after the next that works", async () => {
    // As if careflow had been stopped over the last nights: the last success long ago.
    await kvSet(
      t.app.ctx.db,
      "backup:last-ok",
      JSON.stringify({ at: "2026-01-02T03:30:00.000Z", made_by: "scheduled", duration_ms: 1 }),
      "2026-01-02T03:30:00.000Z",
    );
    const missed = await part();
    assert.equal(missed.state, "down");
    assert.equal(missed.detail, "the backup due at 2026-01-03 03:30 was not made (the last is of 2026-01-02 03:30)");
    assert.equal((await t.post("/api/v1/admin/backups")).status, 201);
    assert.equal((await part()).state, "ok");
  });

  it("is down when a backup fails, saying why, and the POST answers 503 with the reason", async () => {
    t.app.ctx.settings.backup.dir = "/dev/null/backups"; // a folder that cannot be made
    try {
      const res = await t.post("/api/v1/admin/backups");
      assert.equal(res.status, 503);
      assert.match(res.body.detail, /^the backup failed: .*ENOTDIR/);
      const failed = await part();
      assert.equal(failed.state, "down");
      assert.match(failed.detail, /^the backup of 2026-01-08 \d\d:\d\d failed: .*ENOTDIR/);
      // A caregiver reads the state (the Household page shows it) but neither the files nor where they are.
      const seen = await t.get("/api/v1/backup-status", KEYS.caregiver);
      assert.equal(seen.status, 200);
      assert.deepEqual([seen.body.state, seen.body.detail, seen.body.last_ok.made_by], ["down", failed.detail, "manual"]);
      assert.match(seen.body.last_failure.error, /ENOTDIR/);
      assert.deepEqual([seen.body.dir, seen.body.backups], [undefined, undefined]);
      assert.equal((await t.get("/api/v1/admin/backups", KEYS.caregiver)).status, 403);
      clock.advance(30_000); // the watcher's next tick publishes the change
      await eventually("the change published", () => changes.some((c) => c.to === "down"));
    } finally {
      t.app.ctx.settings.backup.dir = null;
    }
    assert.equal((await t.post("/api/v1/admin/backups")).status, 201);
    // Read at once, not at the board's next round: the page shows the section and the board side by side.
    assert.equal((await t.get("/api/v1/backup-status", KEYS.caregiver)).body.state, "ok");
    const board = (await t.get("/api/v1/admin/health/parts")).body.parts.find((p: { id: string }) => p.id === "backup");
    assert.equal(board.state, "ok");
  });

  it("of two backups made within one second, keeps the second (-2), which is the newer", () => {
    const atMs = Date.parse("2026-01-05T12:00:00Z");
    const backups = ["careflow-20260105-120000Z.cfbackup", "careflow-20260105-120000Z-2.cfbackup"].map((name) => ({ name, atMs }));
    assert.deepEqual([...keptBackups(backups, 1, 0, "UTC")], ["careflow-20260105-120000Z-2.cfbackup"]);
    assert.deepEqual([...keptBackups([...backups].reverse(), 1, 0, "UTC")], ["careflow-20260105-120000Z-2.cfbackup"]);
  });

  it("keeps the newest of each day and of each week", () => {
    const at = (iso: string) => Date.parse(iso);
    const backups = [
      "2026-01-01T03:30:00Z", // Thursday, week of Dec 29
      "2026-01-04T03:30:00Z", // Sunday, same week
      "2026-01-05T03:30:00Z", // Monday
      "2026-01-05T12:00:00Z", // by hand the same day
      "2026-01-06T03:30:00Z",
    ].map((iso, i) => ({ name: `b${i}`, atMs: at(iso) }));
    assert.deepEqual([...keptBackups(backups, 2, 2, "UTC")].sort(), ["b1", "b3", "b4"]);
    assert.deepEqual([...keptBackups(backups, 1, 0, "UTC")], ["b4"]);
    // In Auckland (UTC+13) Monday's 12:00 UTC is Tuesday 01:00: the same local day as b4, which is newer.
    assert.deepEqual([...keptBackups(backups, 3, 0, "Pacific/Auckland")].sort(), ["b1", "b2", "b4"]);
  });
});
