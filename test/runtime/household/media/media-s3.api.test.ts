/**
 * careflow with `media.store_url` on the fake S3 (which checks every signature), over real
 * HTTP on a controllable clock: a camera's frame goes to the bucket and comes back by its
 * presigned URL, a speech clip too, nothing lands in the data dir, the retention sweep empties
 * the bucket; a store that goes down makes an upload a 503 with a sentence (no stack, no
 * secret) and the next upload works once it is back; a store unreachable at start does not
 * stop the service.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { objectPath, signedUrl, sweepExpired } from "../../../../runtime/household/media/media.service";
import { readMediaPath } from "../../../../runtime/household/media/media-paths";
import { storeSpeechClip } from "../../../../runtime/household/media/speech-clips";
import { startFakeS3, type FakeS3 } from "../../../fakes/s3-server";
import { captureLog } from "../../../support/capture-log";
import { eventually } from "../../../support/eventually";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const ACCESS = "careflow";
const SECRET = "media-secret-key";
const BUCKET = "careflow-media";
const HOUR = 3_600_000;

const storeUrl = (host: string): string => `http://${ACCESS}:${SECRET}@${host}/${BUCKET}`;

const filesUnder = (dir: string): string[] =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

describe("media in an S3-compatible store (fake S3), over HTTP", function () {
  this.timeout(60_000);
  let s3: FakeS3;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-27T08:00:00Z"));
  const captured = captureLog("info");
  let frame: { object_name: string; bytes: Buffer; url: string };

  before(async () => {
    s3 = await startFakeS3({ accessKey: ACCESS, secretKey: SECRET });
    s3.createBucket(BUCKET);
    t = await startTestApp({ nodeRed: true, clock, log: captured.log, settings: { media: { store_url: storeUrl(new URL(s3.url).host) } } });
  });
  after(async () => {
    await t?.close();
    await s3?.close();
  });

  const upload = (jpeg: Buffer) => t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: cameraPayload(jpeg) });

  it("says at start where media is kept, without the secret", () => {
    const line = captured.lines.find((l) => /media: kept in the S3-compatible store/.test(String(l.msg)));
    assert.ok(line, "the start names the store");
    assert.match(String(line.msg), new RegExp(`at http://127\\.0\\.0\\.1:\\d+/${BUCKET}$`));
    assert.ok(!JSON.stringify(captured.lines).includes(SECRET), "the secret key is never logged");
  });

  it("keeps a camera's frame in the bucket and serves it by a presigned URL the store checks", async () => {
    const jpeg = await testJpeg(64, 48, 11);
    const res = await upload(jpeg);
    assert.equal(res.status, 200, res.text);
    const name: string = res.body.object_name;
    const key = s3.keys(BUCKET).find((k) => k.endsWith(`/media/${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`));
    assert.ok(key, s3.keys(BUCKET).join(", "));
    assert.equal(s3.object(BUCKET, key)?.contentType, "image/jpeg");
    assert.deepEqual(filesUnder(path.join(t.app.ctx.dataDir, "media")), [], "nothing in the data dir");

    const url = await signedUrl(t.app.ctx, name);
    assert.ok(url.startsWith(`${s3.url}/${BUCKET}/`), url);
    assert.match(url, /X-Amz-Expires=900&/, "media.signed_url_ttl_seconds");
    const got = await fetch(url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "image/jpeg");
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), jpeg);
    assert.equal(s3.requests.at(-1)?.outcome, "ok");
    // What a rule's steps read from the trigger's media paths.
    assert.deepEqual(await readMediaPath(t.app.ctx, objectPath(name)), jpeg);
    frame = { object_name: name, bytes: jpeg, url };
  });

  it("plays a speech clip from the bucket by its presigned URL", async () => {
    const mp3 = Buffer.concat([Buffer.from("ID3"), Buffer.alloc(300, 5)]);
    const clip = await storeSpeechClip(t.app.ctx, mp3, "mp3");
    assert.ok(clip.url.startsWith(`${s3.url}/${BUCKET}/`), clip.url);
    const got = await fetch(clip.url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "audio/mpeg");
    assert.deepEqual(Buffer.from(await got.arrayBuffer()), mp3);
  });

  it("answers an upload 503 with a sentence while the store is down, and stores the next once it is back", async () => {
    s3.down = true;
    try {
      const res = await upload(await testJpeg(64, 48, 12));
      assert.equal(res.status, 503, res.text);
      assert.match(
        res.body.detail,
        new RegExp(`media store at http://127\\.0\\.0\\.1:\\d+/${BUCKET} answered PUT media/\\S+ with HTTP 503: ServiceUnavailable`),
      );
      assert.ok(!res.text.includes(SECRET) && !/\n\s+at /.test(res.text), res.text);
      const warned = captured.lines.find((l) => /media store at .* answered PUT/.test(JSON.stringify(l)));
      assert.ok(warned, "the refusal is logged");
      assert.equal(warned.level, 40, "as a warning");
      assert.doesNotMatch(JSON.stringify(warned), /\\n\s+at /, "without a stack");
      // A rule's step reading the frame gets no image, not an error.
      assert.equal(await readMediaPath(t.app.ctx, objectPath(frame.object_name)), null);
    } finally {
      s3.down = false;
    }
    const again = await upload(await testJpeg(64, 48, 13));
    assert.equal(again.status, 200, again.text);
  });

  it("deletes the frames from the bucket once the retention has passed (the app's own sweep, on its clock)", async () => {
    const frames = () => s3.keys(BUCKET).filter((k) => k.includes("/media/") && !k.includes("/speech/"));
    assert.equal(frames().length, 2);
    clock.advance(25 * HOUR);
    await eventually("the sweep to empty the bucket's frames", () => frames().length === 0);
    assert.deepEqual(await sweepExpired(t.app.ctx), { rows: 0, files: 0 }, "nothing left to sweep");
    const gone = await fetch(frame.url);
    assert.equal(gone.status, 404);
    assert.match(await gone.text(), /<Code>NoSuchKey<\/Code>/);
  });
});

describe("media in an S3-compatible store that does not answer at start", function () {
  this.timeout(30_000);
  let t: TestApp;
  const captured = captureLog("info");

  before(async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((r) => server.close(r));
    t = await startTestApp({ log: captured.log, settings: { media: { store_url: storeUrl(`127.0.0.1:${port}`) } } });
  });
  after(() => t?.close());

  it("starts anyway, with a warning naming the store, and answers what would store media 503", async () => {
    const warned = captured.lines.find((l) =>
      /media: the media store at .* is unreachable: ECONNREFUSED; frames and speech clips cannot be stored/.test(String(l.msg)),
    );
    assert.ok(warned, JSON.stringify(captured.lines.map((l) => l.msg)));
    assert.equal(warned.level, 40);
    assert.equal((await t.get("/health", null)).status, 200);
    const render = await t.post("/api/v1/image/render", { text: "Lunch at one", sensor_ids: ["hall_display"], expires_in_minutes: 30 });
    assert.equal(render.status, 503, render.text);
    assert.match(render.body.detail, /media store at http:\/\/127\.0\.0\.1:\d+\/careflow-media is unreachable: ECONNREFUSED/);
  });
});
