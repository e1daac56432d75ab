/**
 * Bodies before keys (issue 51, item 3): a camera upload without a header or query key may
 * carry its key in the body, so its body is read, but only as far as the key. A wrong key, no
 * key in the first 64 KB, or a blocked address is answered while the client is still sending:
 * the 24 MB behind are never read (each request here announces 24 MB and sends a little; an
 * answer before the rest was sent proves the rest was not waited for). A right key in the
 * body still brings a whole frame in.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { ManualClock } from "../../runtime/platform/core/clock";
import { cameraPayload } from "../support/jpeg";
import { prng } from "../support/prng";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";
import { rawRequest, type RawResponse } from "../support/raw-http";

const ANNOUNCED = 24 * 1024 * 1024;

/** A real frame well over the key's 64 KB window (noise does not compress). */
const noisyJpeg = (): Promise<Buffer> =>
  sharp({ create: { width: 640, height: 480, channels: 3, noise: { type: "gaussian" as const, mean: 128, sigma: 60 }, background: "#000" } })
    .jpeg({ quality: 80 })
    .toBuffer();

describe("security: an anonymous device body is read only as far as its key", function () {
  this.timeout(60_000);
  let t: TestApp;
  let port: number;

  /** Announces a 24 MB camera upload, sends only `start`, and waits (briefly) for the answer. */
  const partialUpload = (start: string, localAddress?: string): Promise<RawResponse> =>
    rawRequest(port, {
      method: "POST",
      target: "/api/v1/device/camera",
      headers: { "content-type": "application/json", "content-length": String(ANNOUNCED) },
      body: start,
      localAddress,
      timeoutMs: 5000,
    });
  const image = (bytes: number) => "A".repeat(bytes);

  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      clock: new ManualClock(Date.parse("2026-11-29T08:00:00Z")),
      settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 5, window_seconds: 60, block_seconds: 30, max_block_seconds: 600 } } },
    });
    port = Number(new URL(t.baseUrl).port);
  });
  after(() => t.close());

  it("answers a wrong device_key 401 as soon as it has arrived, and counts it", async () => {
    const from = "127.0.0.31";
    for (let i = 0; i < 5; i++) {
      const res = await partialUpload(`{"device_key":"WRONG00${i}","code":0,"data":{"image":"${image(200_000)}`, from);
      assert.equal(res.status, 401, res.body);
      assert.equal(res.headers.connection, "close");
    }
    // Counted as any wrong key: the address is now blocked.
    assert.equal((await t.request("GET", "/api/v1/rooms", { key: KEYS.admin })).status, 200);
    assert.equal((await partialUpload(`{"device_key":"${KEYS.camera}",`, from)).status, 429);
  });

  it("answers a body without device_key in its first 64 KB 401, without reading on", async () => {
    const res = await partialUpload(`{"code":0,"data":{"image":"${image(200_000)}`);
    assert.equal(res.status, 401);
    assert.match((res.json as { detail: string }).detail, /device_key, the first field of the JSON body/);
  });

  it("refuses a blocked address with 429 before reading a byte of its body", async () => {
    const from = "127.0.0.32";
    for (let i = 0; i < 5; i++)
      await rawRequest(port, { method: "GET", target: "/api/v1/rooms", headers: { "x-api-key": `wrong-${i}-xxxxxxxx` }, localAddress: from });
    const res = await partialUpload("", from);
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers["retry-after"]) > 0);
  });

  it("still takes a whole frame from a camera whose key is the body's first field", async () => {
    const jpeg = await noisyJpeg();
    const body = { device_key: KEYS.camera, ...cameraPayload(jpeg) };
    assert.ok(JSON.stringify(body).length > 64 * 1024, "the frame is longer than the key's window");
    const res = await t.request("POST", "/api/v1/device/camera", { key: null, body });
    assert.equal(res.status, 200, res.text);
  });

  it("answers a right key placed after a large image 401, saying where the key goes", async () => {
    const jpeg = await noisyJpeg();
    const res = await t.request("POST", "/api/v1/device/camera", { key: null, body: { ...cameraPayload(jpeg), device_key: KEYS.camera } });
    assert.equal(res.status, 401, res.text);
    assert.match(res.body.detail, /device_key, the first field/);
  });

  it("still reads a small body whose key comes last", async () => {
    const res = await t.request("POST", "/api/v1/device/camera", { key: null, body: { code: 0, data: { labels: [] }, device_key: KEYS.camera } });
    assert.ok(![401, 403].includes(res.status), res.text);
  });

  it('answers 300 mutated anonymous bodies below 500 with {"detail"}, and lets no wrong key in (seed 20261129)', async () => {
    const random = prng(20261129);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
    const base = JSON.stringify({ device_key: KEYS.camera, code: 0, data: { labels: ["person"], image: "QUJD" } });
    const pieces = ['"', "\\", "{", "}", "[", "]", ":", ",", " ", "device_key", '"device_key"', "\\u0000", "\u00e9", "null", "1e999"];
    for (let i = 0; i < 300; i++) {
      let body = base;
      for (let m = 1 + Math.floor(random() * 4); m > 0; m--) {
        const at = Math.floor(random() * body.length);
        const op = random();
        if (op < 0.4) body = body.slice(0, at) + pick(pieces) + body.slice(at);
        else if (op < 0.7) body = body.slice(0, at) + body.slice(at + 1 + Math.floor(random() * 5));
        else body = body.slice(0, at) + body.slice(at).replace(KEYS.camera, pick(["CAM00002", "", KEYS.display]));
      }
      const res = await rawRequest(port, {
        method: "POST",
        target: "/api/v1/device/camera",
        headers: { "content-type": "application/json" },
        body,
        // An address each, so that the throttle's block does not answer for the parser.
        localAddress: `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      });
      assert.ok(res.status < 500, `${res.status} for ${body}: ${res.body}`);
      if (res.status >= 400) assert.equal(typeof (res.json as { detail?: unknown } | undefined)?.detail, "string", `${res.status} for ${body}: ${res.body}`);
      // A key other than the camera's (or none) never gets past authentication.
      if (!body.includes(`"${KEYS.camera}"`)) assert.ok([401, 403].includes(res.status), `${res.status} for ${body}`);
    }
  });
});
