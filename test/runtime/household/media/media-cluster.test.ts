/**
 * Media shared by two instances on one PostgreSQL (issue 28 §3), each with a data dir of its
 * own, on one controllable clock: a frame a camera posts to A is served by B under a URL A
 * signed (and the other way round), and read by B's steps and rehearsals; a speech clip
 * stored by A plays from B (and is swept by B an hour later); an e-ink card rendered through
 * A is served to a display polling B; a frame past the retention is swept from the shared
 * store and gone on both; an expired URL is refused by both.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createApp, type CareflowApp } from "../../../../runtime/app/app";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { objectPath, signedUrl, sweepExpired } from "../../../../runtime/household/media/media.service";
import { readMediaPath } from "../../../../runtime/household/media/media-paths";
import { borrowMediaObjects, mediaObjects } from "../../../../runtime/household/media/media-objects";
import { openStore } from "../../../../runtime/platform/db/store";
import { storeSpeechClip } from "../../../../runtime/household/media/speech-clips";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";
import { KEYS, testAuthSettings } from "../../../support/test-app";

const HOUR = 3_600_000;

interface Instance {
  app: CareflowApp;
  base: string;
}

describe("media shared by two instances (cluster, PostgreSQL)", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let a: Instance;
  let b: Instance;
  const clock = new ManualClock(Date.parse("2026-11-27T08:00:00Z"));

  // Node-RED runs once per process: only A has it (and so the Devices tab that takes camera uploads).
  const start = async (id: string, nodeRed: boolean): Promise<Instance> => {
    const settings = buildSettings({ auth: testAuthSettings(), cluster: { enabled: true, instance_id: id, lease_seconds: 1 } });
    const app = await createApp({
      config: { port: 0, dataDir: path.join(pg.dataDir, id), databaseUrl: pg.url, settingsFile: undefined, settings },
      log: createLogger("silent"),
      nodeRed,
      clock,
    });
    return { app, base: `http://127.0.0.1:${await app.listen(0, "127.0.0.1")}` };
  };
  const fetchFrom = async (i: Instance, url: string, key: string | null = null) => {
    const res = await fetch(i.base + url, { headers: key ? { "x-api-key": key } : {} });
    return { status: res.status, type: res.headers.get("content-type"), headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const post = async (i: Instance, url: string, body: unknown, key: string) => {
    const res = await fetch(i.base + url, { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const filesUnder = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => e.name)
      : [];

  before(async function () {
    pg = await sharedPg(this);
    a = await start("media-a", true);
    b = await start("media-b", false);
  });
  after(async () => {
    await a?.app.close().catch(() => undefined);
    await b?.app.close().catch(() => undefined);
    await pg?.drop();
  });

  let frame: { object_name: string; bytes: Buffer };

  it("serves from B a frame a camera posted to A, under a URL signed by A (and from A under one signed by B)", async () => {
    const jpeg = await testJpeg(64, 48, 7);
    const res = await post(a, "/api/v1/device/camera", cameraPayload(jpeg), KEYS.camera);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, "accepted");
    frame = { object_name: res.body.object_name, bytes: jpeg };

    const fromB = await fetchFrom(b, await signedUrl(a.app.ctx, frame.object_name));
    assert.equal(fromB.status, 200);
    assert.equal(fromB.type, "image/jpeg");
    assert.deepEqual(fromB.bytes, jpeg);
    const fromA = await fetchFrom(a, await signedUrl(b.app.ctx, frame.object_name));
    assert.equal(fromA.status, 200);
    assert.deepEqual(fromA.bytes, jpeg);
    // What a rule's steps read from the trigger's media paths, on the other instance.
    assert.deepEqual(await readMediaPath(b.app.ctx, objectPath(frame.object_name)), jpeg);
    // The bytes are in the shared store, not in either instance's data dir.
    assert.deepEqual(filesUnder(path.join(a.app.ctx.dataDir, "media")), []);
    assert.deepEqual(filesUnder(path.join(b.app.ctx.dataDir, "media")), []);
  });

  it("lets a rehearsal on B (its scratch database) read the frame from the shared store", async () => {
    const scratch = await openStore("sqlite::memory:", b.app.ctx.dataDir);
    try {
      borrowMediaObjects(scratch.db, b.app.ctx);
      const ctx = { db: scratch.db, dataDir: b.app.ctx.dataDir, settings: b.app.ctx.settings };
      assert.deepEqual(await readMediaPath(ctx, objectPath(frame.object_name)), frame.bytes);
    } finally {
      await scratch.close();
    }
  });

  it("refuses on B a URL signed by A once it has expired, and a forged one at once", async () => {
    const url = await signedUrl(a.app.ctx, frame.object_name, 60);
    assert.equal((await fetchFrom(b, url.replace(/sig=[^&]+/, `sig=${"A".repeat(43)}`))).status, 403);
    clock.advance(61_000);
    assert.equal((await fetchFrom(b, url)).status, 403);
    assert.equal((await fetchFrom(a, url)).status, 403);
  });

  it("plays from B a speech clip A stored; an hour on, a clip stored by B sweeps it away for both", async () => {
    const mp3 = Buffer.concat([Buffer.from("ID3"), Buffer.alloc(300, 7)]);
    const clip = await storeSpeechClip(a.app.ctx, mp3, "mp3");
    const res = await fetchFrom(b, clip.url);
    assert.equal(res.status, 200);
    assert.equal(res.type, "audio/mpeg");
    assert.deepEqual(res.bytes, mp3);
    clock.advance(61 * 60_000);
    const next = await storeSpeechClip(b.app.ctx, Buffer.concat([Buffer.from("ID3"), Buffer.alloc(300, 8)]), "mp3");
    assert.equal(await mediaObjects(a.app.ctx).stat(`media/speech/${clip.clip_name}`), null);
    assert.equal((await fetchFrom(a, next.url)).status, 200);
  });

  it("serves a display polling B the card rendered through A", async () => {
    const render = await post(a, "/api/v1/image/render", { text: "Lunch at one", sensor_ids: ["hall_display"], expires_in_minutes: 30 }, KEYS.admin);
    assert.equal(render.status, 200, JSON.stringify(render.body));
    const res = await fetchFrom(b, "/api/v1/image/active", KEYS.display);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-image-source"), "active");
    assert.equal(res.type, "image/png");
    assert.deepEqual(filesUnder(path.join(a.app.ctx.dataDir, "eink")), []);
  });

  it("sweeps a frame past the retention from the shared store: gone on both instances", async () => {
    clock.advance(25 * HOUR);
    await sweepExpired(a.app.ctx);
    assert.equal(await mediaObjects(b.app.ctx).stat(objectPath(frame.object_name)), null);
    for (const i of [a, b]) assert.equal((await fetchFrom(i, await signedUrl(b.app.ctx, frame.object_name))).status, 404);
    assert.equal(await readMediaPath(a.app.ctx, objectPath(frame.object_name)), null);
  });

  it("keeps a frame stored again after its first copy expired, when the other instance sweeps", async () => {
    const jpeg = await testJpeg(64, 48, 8);
    assert.equal((await post(a, "/api/v1/device/camera", cameraPayload(jpeg), KEYS.camera)).body.status, "accepted");
    clock.advance(25 * HOUR);
    // The same frame again: its row is new, and the object's put is within the sweep's grace.
    const again = await post(a, "/api/v1/device/camera", cameraPayload(jpeg), KEYS.camera);
    assert.equal(again.body.status, "accepted");
    await sweepExpired(b.app.ctx);
    const res = await fetchFrom(b, await signedUrl(a.app.ctx, again.body.object_name));
    assert.equal(res.status, 200);
    assert.deepEqual(res.bytes, jpeg);
  });
});
