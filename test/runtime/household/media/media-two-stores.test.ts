/**
 * One data dir, two stores (issue 42 item 4): the README's PostgreSQL section tried on a SQLite
 * household's data dir. The visiting store's sweeps (at its start and past the retention) must
 * leave every frame of the household, whose URLs answer again once it is back. The visitor is
 * PostgreSQL in the PostgreSQL pass, a SQLite file outside the data dir otherwise.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { listFrames, signedUrl, storeFrame, sweepExpired } from "../../../../runtime/household/media/media.service";
import { testAuthSettings } from "../../../support/test-app";
import { migratedDatabase, testDialect, type TestDatabase } from "../../../support/test-db";

const HOUR = 3_600_000;
const jpeg = (r: number, g: number, b: number): Promise<Buffer> =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r, g, b } } })
    .jpeg()
    .toBuffer();

async function startOn(dataDir: string, databaseUrl: string | undefined, clock: ManualClock): Promise<{ app: CareflowApp; baseUrl: string }> {
  const app = await createApp({
    config: { port: 0, dataDir, databaseUrl, settingsFile: undefined, settings: buildSettings({ auth: testAuthSettings() }) },
    clock,
    log: createLogger("silent"),
    nodeRed: false,
    demo: false,
  });
  return { app, baseUrl: `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}` };
}

/** Every file under `dir`, relative to it. */
const filesUnder = (dir: string): string[] => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile());

async function served(s: { app: CareflowApp; baseUrl: string }, mediaId: number): Promise<{ status: number; bytes: Buffer }> {
  const res = await fetch(s.baseUrl + (await signedUrl(s.app.ctx, mediaId)));
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("media: one data dir started on another store", function () {
  this.timeout(90_000);
  let dataDir: string;
  let elsewhere: string;
  let visitorDb: TestDatabase | undefined;
  let visitorUrl: string;

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-household-"));
    elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-visitor-"));
    visitorDb = testDialect() === "postgres" ? await migratedDatabase() : undefined;
    visitorUrl = visitorDb?.databaseUrl ?? `sqlite:${path.join(elsewhere, "visitor.db")}`;
  });
  afterEach(async () => {
    await visitorDb?.drop();
    for (const dir of [dataDir, elsewhere]) fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const layout of ["marked", "from before the marker"] as const) {
    it(`keeps every frame of the SQLite household when the visitor sweeps, even frames with the same bytes (data dir ${layout})`, async () => {
      const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));
      const red = await jpeg(220, 20, 20);
      const blue = await jpeg(20, 20, 220);

      let household = await startOn(dataDir, undefined, clock);
      const ids = [
        (await storeFrame(household.app.ctx, { sensor_id: "kitchen_cam", bytes: red, captured_at: "2026-03-02T07:57:00Z" })).media_id,
        (await storeFrame(household.app.ctx, { sensor_id: "hall_cam", bytes: blue })).media_id,
      ];
      await household.app.close();
      if (layout !== "marked") fs.rmSync(path.join(dataDir, "media", ".store-id"), { force: true });

      // Three minutes on (past the sweep's one-minute grace), the visitor starts on the same data dir.
      clock.advance(3 * 60_000);
      const visitorClock = new ManualClock(clock.now());
      const visitor = await startOn(dataDir, visitorUrl, visitorClock);
      try {
        await sweepExpired(visitor.app.ctx);
        // It stores the same bytes, then its own frame expires and its sweep deletes what it stored.
        const own = await storeFrame(visitor.app.ctx, { sensor_id: "kitchen_cam", bytes: red });
        assert.equal((await served(visitor, own.media_id)).status, 200);
        visitorClock.advance(25 * HOUR);
        await sweepExpired(visitor.app.ctx);
        assert.deepEqual(await listFrames(visitor.app.ctx), [], "the visitor's own frame expired");
        assert.ok(!filesUnder(dataDir).some((f) => f.endsWith(own.object_name) && !f.startsWith(`media${path.sep}`)), "and its file with it");
      } finally {
        await visitor.app.close();
      }

      clock.advance(2 * 60_000);
      household = await startOn(dataDir, undefined, clock);
      try {
        assert.deepEqual((await listFrames(household.app.ctx)).map((r) => r.id).sort(), [...ids].sort());
        const answers = await Promise.all(ids.map((id) => served(household, id)));
        assert.deepEqual(
          answers.map((a) => a.status),
          [200, 200],
          "every frame of the household still served",
        );
        assert.deepEqual(answers[0].bytes, red);
        assert.deepEqual(answers[1].bytes, blue);
      } finally {
        await household.app.close();
      }
    });
  }

  it("claims a data dir from before the marker: deletes there only the files its own expired rows named, never another's", async () => {
    const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));
    let household = await startOn(dataDir, undefined, clock);
    const frame = await storeFrame(household.app.ctx, { sensor_id: "kitchen_cam", bytes: await jpeg(220, 20, 20) });
    await household.app.close();
    // The layout before the marker, with a frame another store wrote next to the household's.
    fs.rmSync(path.join(dataDir, "media", ".store-id"), { force: true });
    const theirs = `${"ab".repeat(32)}.jpg`;
    const theirFile = path.join(dataDir, "media", "ab", "ab", theirs);
    fs.mkdirSync(path.dirname(theirFile), { recursive: true });
    fs.writeFileSync(theirFile, await jpeg(20, 220, 20));
    fs.utimesSync(theirFile, new Date(clock.now()), new Date(clock.now()));

    household = await startOn(dataDir, undefined, clock);
    try {
      clock.advance(25 * HOUR);
      await sweepExpired(household.app.ctx);
      assert.deepEqual(await listFrames(household.app.ctx), []);
      assert.ok(!fs.existsSync(path.join(dataDir, frame.path)), "the household's expired frame is deleted");
      assert.ok(fs.existsSync(theirFile), "the other store's file is kept, though no row here names it");
    } finally {
      await household.app.close();
    }
  });
});
