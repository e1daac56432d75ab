/**
 * The media store over real HTTP: content-addressed frames, signed URLs that expire, the
 * retention sweep, and the llm step reading frames through it. Time is a ManualClock.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { buildSettings, loadRunConfig } from "../../../../runtime/platform/config/load-settings";
import { kvGet } from "../../../../runtime/platform/db/kv";
import {
  listFrames,
  openSignedObject,
  signature,
  signedUrl,
  storeFrame,
  sweepExpired,
  SWEEP_EVERY_MS,
  type MediaContext,
} from "../../../../runtime/household/media/media.service";
import { collectImages } from "../../../../runtime/care/services/llm/step/images";
import { eventually } from "../../../support/eventually";
import { captureLog } from "../../../support/capture-log";

const HOUR = 3_600_000;

const jpeg = (r: number, g: number, b: number): Promise<Buffer> =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r, g, b } } })
    .jpeg()
    .toBuffer();

/** Every file under the data dir's media/ folder, relative to it, but the marker naming its store. */
function mediaFiles(dataDir: string): string[] {
  const root = path.join(dataDir, "media");
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f !== ".store-id" && fs.statSync(path.join(root, f)).isFile()).sort();
}

async function fetchBytes(t: TestApp, url: string): Promise<{ status: number; headers: Headers; bytes: Buffer; json: any }> {
  const res = await fetch(t.baseUrl + url);
  const bytes = Buffer.from(await res.arrayBuffer());
  const json = (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(bytes.toString()) : null;
  return { status: res.status, headers: res.headers, bytes, json };
}

describe("media store: content-addressed frames, signed URLs, retention", function () {
  this.timeout(60_000);
  let t: TestApp;
  let clock: ManualClock;
  let ctx: MediaContext;
  let red: Buffer;
  let blue: Buffer;

  beforeEach(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));
    t = await startTestApp({ clock });
    ctx = t.app.ctx;
    red = await jpeg(220, 20, 20);
    blue = await jpeg(20, 20, 220);
  });
  afterEach(() => t.close());

  it("stores a frame content-addressed under the data dir, with its row; the same bytes share one file", async () => {
    const a = await storeFrame(ctx, {
      sensor_id: "kitchen_cam",
      room_name: "Kitchen",
      bytes: red,
      content_type: "image/jpeg",
      labels: ["person"],
      boxes: [[1, 2, 30, 20, 0.91, 0]],
      captured_at: "2026-03-02T07:59:58Z",
    });
    const b = await storeFrame(ctx, { sensor_id: "hall_cam", room_name: "Hall", bytes: red, content_type: "image/jpeg", labels: [], boxes: [] });
    assert.match(a.object_name, /^[0-9a-f]{64}\.jpg$/);
    assert.equal(a.path, `media/${a.object_name.slice(0, 2)}/${a.object_name.slice(2, 4)}/${a.object_name}`);
    assert.equal(b.object_name, a.object_name);
    assert.equal(b.path, a.path);
    assert.notEqual(b.media_id, a.media_id);
    assert.deepEqual(fs.readFileSync(path.join(t.app.ctx.dataDir, a.path)), red);
    assert.deepEqual(mediaFiles(ctx.dataDir), [a.path.slice("media/".length).split("/").join(path.sep)]);

    await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: blue });
    assert.equal(mediaFiles(ctx.dataDir).length, 2);

    assert.equal((await listFrames(ctx, { room_names: ["KITCHEN"] })).length, 1, "rooms in any case");
    const kitchen = await listFrames(ctx, { sensor_ids: ["kitchen_cam"] });
    assert.equal(kitchen.length, 2);
    const first = kitchen.find((r) => r.id === a.media_id)!;
    assert.deepEqual(
      {
        sensor_id: first.sensor_id,
        room_name: first.room_name,
        labels: first.labels,
        boxes: first.boxes,
        captured_at: first.captured_at,
        content_type: first.content_type,
      },
      {
        sensor_id: "kitchen_cam",
        room_name: "Kitchen",
        labels: ["person"],
        boxes: [[1, 2, 30, 20, 0.91, 0]],
        captured_at: "2026-03-02T07:59:58.000Z",
        content_type: "image/jpeg",
      },
    );
  });

  it("refuses bytes that are not the image they claim to be", async () => {
    await assert.rejects(storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: Buffer.from("not an image") }), /not a JPEG/);
    await assert.rejects(storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red, content_type: "image/png" }), /content_type/);
    assert.deepEqual(mediaFiles(ctx.dataDir), []);
  });

  it("serves a frame by its signed URL without an API key, and refuses it once expired", async () => {
    const frame = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red });
    const url = await signedUrl(ctx, frame.media_id);
    assert.match(url, new RegExp(`^/api/v1/media/${frame.object_name}\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`));
    assert.equal(new URL(url, t.baseUrl).searchParams.get("expires"), String(clock.now() / 1000 + 900));
    assert.equal(await signedUrl(ctx, frame.object_name), url);

    const ok = await fetchBytes(t, url);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.bytes, red);
    assert.equal(ok.headers.get("content-type"), "image/jpeg");
    assert.match(ok.headers.get("cache-control") ?? "", /^private, max-age=900$/);
    assert.equal(ok.headers.get("x-content-type-options"), "nosniff");

    clock.advance(899_000);
    assert.equal((await fetchBytes(t, url)).status, 200);
    clock.advance(2_000);
    const expired = await fetchBytes(t, url);
    assert.equal(expired.status, 403);
    assert.match(expired.json.detail, /expired/);

    // A shorter TTL on request.
    const short = await signedUrl(ctx, frame.media_id, 5);
    assert.equal((await fetchBytes(t, short)).status, 200);
    clock.advance(6_000);
    assert.equal((await fetchBytes(t, short)).status, 403);
  });

  it("answers 403 for a tampered, missing or borrowed signature and 404 for an object no row stores", async () => {
    const frame = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red });
    const other = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: blue });
    const url = new URL(await signedUrl(ctx, frame.media_id), t.baseUrl);
    const sig = url.searchParams.get("sig")!;
    const expires = url.searchParams.get("expires")!;
    const tampered = (sig[0] === "A" ? "B" : "A") + sig.slice(1);
    for (const bad of [
      `/api/v1/media/${frame.object_name}?expires=${expires}&sig=${tampered}`,
      `/api/v1/media/${frame.object_name}?expires=${Number(expires) + 3600}&sig=${sig}`,
      `/api/v1/media/${frame.object_name}?expires=${expires}`,
      `/api/v1/media/${frame.object_name}`,
      `/api/v1/media/${frame.object_name}?expires=${expires}&sig=${sig}x`,
      `/api/v1/media/${other.object_name}?expires=${expires}&sig=${sig}`,
    ]) {
      const res = await fetchBytes(t, bad);
      assert.equal(res.status, 403, bad);
      assert.equal(typeof res.json?.detail, "string", bad);
    }
    // An API key is no substitute for the signature.
    assert.equal((await t.get(`/api/v1/media/${frame.object_name}`)).status, 403);

    const unknown = `${"0".repeat(64)}.jpg`;
    const res = await fetchBytes(t, await signedUrl(ctx, unknown));
    assert.equal(res.status, 404);
    assert.equal(typeof res.json?.detail, "string");
  });

  it("refuses path traversal in the object name, even with a valid signature", async () => {
    const frame = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red });
    await signedUrl(ctx, frame.media_id); // the secret exists from the first URL on
    fs.writeFileSync(path.join(ctx.dataDir, "secret.txt"), "do not serve");
    await assert.rejects(signedUrl(ctx, "../secret.txt"), /not a media object name/);
    const secret = Buffer.from((await kvGet(ctx.db, "media:url-secret"))!, "hex");
    const expires = Math.ceil(clock.now() / 1000) + 60;
    for (const name of ["../secret.txt", "../../secret.txt", "..", "media/../secret.txt", "..\\secret.txt"]) {
      const sig = signature(secret, name, expires);
      await assert.rejects(openSignedObject(ctx, name, { expires: String(expires), sig }), /not found/i, name);
      const res = await fetchBytes(t, `/api/v1/media/${encodeURIComponent(name)}?expires=${expires}&sig=${sig}`);
      // 404 here; ".." alone is resolved away by the URL itself and meets the key check (401).
      assert.ok([400, 401, 404].includes(res.status), `${name}: ${res.status}`);
      assert.ok(!res.bytes.toString().includes("do not serve"), name);
    }
  });

  // The rule for files no row names (issue 42 item 4): in this store's own folder only; another
  // store's files on the same data dir are never swept (media-two-stores.test.ts).
  it("sweeps rows older than media_retention_hours, then the files of its own folder no row names any more", async () => {
    const old = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red });
    const shared = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: blue });
    clock.advance(20 * HOUR);
    const again = await storeFrame(ctx, { sensor_id: "hall_cam", bytes: blue });
    assert.equal(again.object_name, shared.object_name);
    // A write a crash left behind.
    const leftover = path.join(ctx.dataDir, path.dirname(old.path), `.${old.object_name}.abc.tmp`);
    fs.writeFileSync(leftover, "partial");
    fs.utimesSync(leftover, new Date(clock.now()), new Date(clock.now()));

    clock.advance(5 * HOUR);
    await sweepExpired(ctx);
    const rows = await listFrames(ctx);
    assert.deepEqual(
      rows.map((r) => r.id),
      [again.media_id],
    );
    assert.ok(!fs.existsSync(path.join(ctx.dataDir, old.path)), "the unreferenced file is gone");
    assert.ok(!fs.existsSync(leftover), "the leftover temporary file is gone");
    assert.ok(fs.existsSync(path.join(ctx.dataDir, again.path)), "the file a kept row names stays");
    assert.equal((await fetchBytes(t, await signedUrl(ctx, again.media_id))).status, 200);
    assert.equal((await fetchBytes(t, await signedUrl(ctx, old.object_name))).status, 404);

    // The app's own periodic sweep takes the rest once it is due.
    clock.advance(24 * HOUR + SWEEP_EVERY_MS);
    await eventually("the periodic sweep", async () => (await listFrames(ctx)).length === 0 && mediaFiles(ctx.dataDir).length === 0, 20_000);
  });

  it("sweeps only its own frames and leftovers past the grace: other files, fresh writes and a kept row's frame stay", async () => {
    const captured = captureLog();
    const sctx = { ...ctx, log: captured.log };
    const expired = await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red });
    const kept = await storeFrame(ctx, { sensor_id: "hall_cam", bytes: blue });
    const dir = path.join(ctx.dataDir, path.dirname(kept.path));
    const put = (name: string, ageMs: number): string => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, "x");
      fs.utimesSync(file, new Date(clock.now() - ageMs), new Date(clock.now() - ageMs));
      return file;
    };
    clock.advance(25 * HOUR);
    // The app's own sweep at the rows' expiry: both rows, and the frame no row names any more.
    await eventually("the app's own sweep", async () => (await listFrames(ctx)).length === 0 && !fs.existsSync(path.join(ctx.dataDir, expired.path)), 20_000);
    // The same bytes stored again now: a new row names the kept frame.
    await storeFrame(ctx, { sensor_id: "hall_cam", bytes: blue });
    const notOurs = put("notes.txt", 2 * 60_000);
    const oldLeftover = put(`.${"cd".repeat(32)}.jpg.1.tmp`, 2 * 60_000);
    const freshLeftover = put(`.${"ef".repeat(32)}.jpg.2.tmp`, 10_000);
    const unsharded = path.join(ctx.dataDir, "media", `${"12".repeat(32)}.jpg`);
    fs.writeFileSync(unsharded, "x");
    fs.utimesSync(unsharded, new Date(clock.now() - 2 * 60_000), new Date(clock.now() - 2 * 60_000));

    const report = await sweepExpired(sctx);
    assert.deepEqual(report, { rows: 0, files: 1 }, "only the old leftover");
    assert.ok(!fs.existsSync(oldLeftover));
    for (const stays of [path.join(ctx.dataDir, kept.path), notOurs, freshLeftover, unsharded])
      assert.ok(fs.existsSync(stays), `${path.basename(stays)} stays`);
    assert.deepEqual(
      captured.lines.filter((l) => l.msg === "media: expired frames deleted").map((l) => [l.rows, l.files]),
      [[0, 1]],
    );
    assert.deepEqual(await sweepExpired(sctx), { rows: 0, files: 0 }, "nothing more to sweep");
    assert.equal(captured.lines.filter((l) => l.msg === "media: expired frames deleted").length, 1, "and a sweep of nothing says nothing");
  });

  it("lets a frame be stored while a long sweep runs: the sweep deletes in chunks, not holding the store for all of it", async () => {
    // 600 expired frames, each its own object, captured 25 hours ago (the clock does not move,
    // so the app's own periodic sweep stays out of this).
    const longAgo = new Date(clock.now() - 25 * HOUR).toISOString();
    for (let i = 0; i < 600; i++) {
      await storeFrame(ctx, { sensor_id: "porch_cam", bytes: Buffer.concat([red, Buffer.from([i & 255, i >> 8])]), captured_at: longAgo });
    }
    // Past the sweep's one-minute grace for freshly written files.
    for (const f of mediaFiles(ctx.dataDir)) {
      const full = path.join(ctx.dataDir, "media", f);
      fs.utimesSync(full, new Date(clock.now() - 2 * 60_000), new Date(clock.now() - 2 * 60_000));
    }
    let sweepDone = false;
    const sweep = sweepExpired(ctx).then((r) => {
      sweepDone = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    const stored = await storeFrame(ctx, { sensor_id: "porch_cam", bytes: blue });
    assert.equal(sweepDone, false, "the frame was stored before the sweep had finished");
    const report = await sweep;
    assert.ok(report.files >= 600, `${report.files} files swept`);
    assert.ok(fs.existsSync(path.join(ctx.dataDir, stored.path)), "the frame stored during the sweep is kept");
  });

  it("keeps no sweep timer while there are no frames; a stored frame arms one for its expiry", async () => {
    await eventually("the start's sweep", async () => clock.pendingTimers() === 0, 20_000);
    await storeFrame(ctx, { sensor_id: "kitchen_cam", bytes: red });
    assert.equal(clock.pendingTimers(), 1);
    clock.advance(24 * HOUR);
    assert.equal((await listFrames(ctx)).length, 1, "not older than the retention yet");
    clock.advance(1_000);
    await eventually("the sweep at the frame's expiry", async () => (await listFrames(ctx)).length === 0 && mediaFiles(ctx.dataDir).length === 0, 20_000);
    await eventually("the timer to go with the last frame", async () => clock.pendingTimers() === 0, 20_000);
  });

  it("hands frames stored here to the llm step's images, read through the media service", async () => {
    const frame = await storeFrame(ctx, { sensor_id: "kitchen_cam", room_name: "Kitchen", bytes: red });
    const env = { db: ctx.db, dataDir: ctx.dataDir, log: createLogger("silent"), nowMs: clock.now(), timeZone: "UTC" };
    const config = {
      image_source: "both" as const,
      max_images: 5,
      additional_sensor_ids: [],
      additional_room_names: ["kitchen"],
      images_per_sensor: 3,
      sort_by_sensor_then_time: true,
    };
    const images = await collectImages(env, [frame.path], config);
    assert.equal(images.length, 1, "the trigger's frame and the room's frame are the same file");
    assert.deepEqual(images[0].data, red);
    assert.equal(images[0].mime, "image/jpeg");
  });
});

describe("media settings", () => {
  it("declares the TTL and the retention with their defaults", () => {
    const s = buildSettings({});
    assert.equal(s.media.signed_url_ttl_seconds, 900);
    assert.equal(s.aggregator.media_retention_hours, 24);
  });

  it("takes an S3-compatible store as http(s)://KEY:SECRET@host/bucket, and refuses any other form saying which part is wrong", () => {
    const s = buildSettings({ media: { store_url: "http://careflow:s%2Fcret@127.0.0.1:9000/careflow-media/household" } });
    assert.equal(s.media.store_region, "us-east-1");
    assert.equal(s.media.store_timeout_seconds, 10);
    assert.throws(() => buildSettings({ media: { store_url: "s3://bucket" } }), /media\.store_url.*s3:\/\/ is not spoken/);
    assert.throws(
      () => buildSettings({ media: { store_url: "http://127.0.0.1:9000/careflow-media" } }),
      /media\.store_url.*access key and secret key are missing/,
    );
    assert.throws(() => buildSettings({ media: { store_url: "http://k:s@127.0.0.1:9000/" } }), /media\.store_url.*no bucket name/);
    assert.throws(() => buildSettings({ media: { store_url: "http://k:s@127.0.0.1:9000/Bucket_1" } }), /no bucket name/);
    assert.throws(() => buildSettings({ media: { store_url: "http://k:s@127.0.0.1:9000/b1c?region=x" } }), /no query/);
    const error = (() => {
      try {
        buildSettings({ media: { store_url: "ftp://k:very-secret@h/b1c" } });
      } catch (err) {
        return String(err);
      }
      return "";
    })();
    assert.ok(error && !error.includes("very-secret"), error);
  });

  it("takes the store's URL from CAREFLOW_MEDIA_STORE_URL, keeping the secret out of the settings file", () => {
    const url = "http://careflow:secret@127.0.0.1:9000/careflow-media";
    assert.equal(loadRunConfig({ CAREFLOW_MEDIA_STORE_URL: url }).settings.media.store_url, url);
    assert.throws(() => loadRunConfig({ CAREFLOW_MEDIA_STORE_URL: "http://127.0.0.1:9000/careflow-media" }), /CAREFLOW_MEDIA_STORE_URL: the access key/);
  });
});
