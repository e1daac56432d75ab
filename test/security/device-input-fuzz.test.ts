/**
 * Device input fuzz: valid camera and terminal payloads with one field at a time (or the
 * whole body) replaced by junk, sent with the device's key through the Devices tab. Every
 * answer is below 500, every refusal a JSON `{"detail"}` naming a field, and a refused frame
 * leaves nothing in the media store. Deterministic (`CAREFLOW_FUZZ_SEED`).
 */
import assert from "node:assert/strict";
import { prng } from "../support/prng";
import { listFrames } from "../../runtime/household/media/media.service";
import { cameraPayload, testJpeg } from "../support/jpeg";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../support/test-app";

const SEED = Number(process.env.CAREFLOW_FUZZ_SEED ?? 20261124);

const JUNK: unknown[] = [
  null,
  -1,
  1.5,
  1e308,
  "",
  "x".repeat(5000),
  "💥",
  "\u202e",
  true,
  [],
  {},
  [[]],
  [1, "a", null],
  { image: 5 },
  "/9j/",
  "====",
  "AAAA",
  [["a", "b", "c", "d"]],
];

describe("security: device input fuzz (camera and terminal)", function () {
  this.timeout(120_000);
  let t: TestApp;
  const rand = prng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

  before(async () => {
    t = await startTestApp({
      nodeRed: true,
      settings: { auth: { ...testAuthSettings(), throttle: { max_failures: 1_000_000 } }, cameras: { kitchen_cam: { rotate: 180 } } },
    });
  });
  after(() => t.close());

  const check = (what: string, res: { status: number; body: any; text: string }, failures: string[]) => {
    if (res.status >= 500) failures.push(`${what} → ${res.status} ${res.text.slice(0, 200)}`);
    else if (res.status >= 400 && (typeof res.body?.detail !== "string" || res.body.detail === ""))
      failures.push(`${what} → ${res.status} without detail: ${res.text.slice(0, 200)}`);
  };

  it(`answers 200 mutated camera payloads below 500, refusals with {"detail"}, and stores only accepted frames (seed ${SEED})`, async () => {
    const jpeg = await testJpeg(32, 24, 7);
    const failures: string[] = [];
    let accepted = 0;
    for (let i = 0; i < 200; i++) {
      const body = structuredClone(cameraPayload(jpeg, ["person"])) as Record<string, any>;
      const r = rand();
      if (r < 0.6) body.data[pick(["image", "labels", "boxes", "count", "perf", "resolution"])] = pick(JUNK);
      else if (r < 0.8) body[pick(["code", "name", "type", "data"])] = pick(JUNK);
      else if (r < 0.9) body.data.image = jpeg.subarray(0, Math.floor(rand() * jpeg.length)).toString("base64");
      else body.data.labels = Array.from({ length: Math.floor(rand() * 400) }, () => pick(["person", "", " ", "x".repeat(150)]));
      const res = await t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body });
      check(JSON.stringify(body).slice(0, 120), res, failures);
      if (res.status === 200 && res.body.status === "accepted") accepted++;
    }
    assert.deepEqual(failures, []);
    assert.equal(
      (await listFrames(t.app.ctx, { sensor_ids: ["kitchen_cam"] })).length,
      accepted,
      "one stored frame per accepted upload, none for a refused one",
    );
  });

  it('answers 200 mutated terminal payloads below 500, refusals with {"detail"}', async () => {
    const failures: string[] = [];
    for (let i = 0; i < 200; i++) {
      const body: Record<string, unknown> = pick([{ button: "single" }, { command: "help", args: ["x"] }, { action: "none" }]);
      body[pick(["button", "command", "args", "action", "alert_id", "event", "extra"])] = pick(JUNK);
      check(JSON.stringify(body).slice(0, 120), await t.request("POST", "/api/v1/device/terminal", { key: KEYS.terminal, body }), failures);
    }
    assert.deepEqual(failures, []);
    assert.equal((await t.get("/health")).status, 200);
  });
});
