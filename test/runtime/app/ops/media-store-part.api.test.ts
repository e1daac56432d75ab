/**
 * An S3-compatible media store as a part (issue 44 §1), with the fake S3 and a ManualClock: ok
 * once its check (a listing) answers; a camera frame the store refuses with a 5xx makes it down
 * at once, with the reason; back once a frame goes through again. With nothing asking for 5
 * minutes its check runs, and a failing check is late before it is down. Media on the data
 * dir's disk is no part of its own (the disk part covers it).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { SAMPLE_EVERY_MS, type PartView } from "../../../../runtime/platform/health/parts-board";
import { startFakeS3, type FakeS3 } from "../../../fakes/s3-server";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const MINUTE = 60_000;
const BUCKET = "careflow-media";

describe("an S3 media store as a part", function () {
  this.timeout(30000);
  let s3: FakeS3;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));

  const partsOf = async (app: TestApp): Promise<PartView[]> => {
    const res = await app.get<{ parts: PartView[] }>("/api/v1/admin/health/parts", KEYS.caregiver);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.parts;
  };
  const part = async (): Promise<PartView | undefined> => (await partsOf(t)).find((p) => p.kind === "media_store");
  const pass = async (ms: number) => {
    for (let done = 0; done < ms; done += SAMPLE_EVERY_MS) {
      clock.advance(SAMPLE_EVERY_MS);
      await t.app.ctx.parts?.sampled();
    }
  };
  // A listing of the bucket (the check): a GET of the bucket itself.
  const listings = () => s3.requests.filter((r) => r.method === "GET" && r.path.split("?")[0] === `/${BUCKET}`).length;
  const upload = async () => t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: cameraPayload(await testJpeg()) });

  before(async () => {
    s3 = await startFakeS3({ accessKey: "careflow", secretKey: "media-secret-key" });
    s3.createBucket(BUCKET);
    const host = new URL(s3.url).host;
    t = await startTestApp({ nodeRed: true, clock, settings: { media: { store_url: `http://careflow:media-secret-key@${host}/${BUCKET}` } } });
  });
  after(async () => {
    await t?.close();
    await s3?.close();
  });

  it("is ok once its check answered, named by its host", async () => {
    await pass(SAMPLE_EVERY_MS);
    const p = await part();
    assert.ok(p, "a media_store part");
    assert.equal(p.id, "media_store");
    assert.equal(p.state, "ok");
    assert.equal(p.name, `Media store (${new URL(s3.url).host})`);
  });

  it("is down at once when the store refuses a frame, with the reason, and ok when the next frame goes through", async () => {
    s3.down = true;
    const refused = await upload();
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    let p = await part();
    assert.equal(p?.state, "down");
    assert.match(p?.detail ?? "", /HTTP 503/);
    s3.down = false;
    const taken = await upload();
    assert.ok(taken.status < 300, JSON.stringify(taken.body));
    p = await part();
    assert.equal(p?.state, "ok");
  });

  it("checks a quiet store at most once per 5 minutes; a failing check is late, then down", async () => {
    const before = listings();
    await pass(4 * MINUTE);
    assert.equal(listings(), before, "a frame was stored under 5 minutes ago: no check");
    await pass(2 * MINUTE);
    assert.equal(listings(), before + 1, "one check after 5 quiet minutes");
    s3.down = true;
    await pass(5 * MINUTE);
    assert.equal((await part())?.state, "late", "one failed check");
    await pass(5 * MINUTE);
    const p = await part();
    assert.equal(p?.state, "down", "the next check failed too");
    assert.match(p?.detail ?? "", /did not answer the check/);
    s3.down = false;
  });

  it("is no part when media is kept on the data dir's disk", async () => {
    const local = await startTestApp({ clock: new ManualClock(Date.parse("2026-03-02T08:00:00Z")) });
    try {
      assert.equal(
        (await partsOf(local)).find((p) => p.kind === "media_store"),
        undefined,
      );
    } finally {
      await local.close();
    }
  });
});
