/**
 * Scene samples end to end: a `SceneSample` published on the machine's NATS JetStream broker
 * has its keyframe fetched from a fake S3 store (path-style GetObject, SigV4 verified), analysed
 * by the fake scene-analysis service and stored as an observation in the fake semantic memory,
 * where a search finds it; and each way it can go wrong (store down, object missing, refused
 * credentials, analysis down, memory down, expired, too many at once) is counted in /health and
 * crashes nothing. Over real HTTP, on SQLite or PostgreSQL (CAREFLOW_TEST_DATABASE_URL).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { objectPath } from "../../../../../runtime/care/services/perception/keyframe-store.client";
import { searchObservations } from "../../../../../runtime/care/services/perception/semantic-memory.client";
import type { SceneSampleStatus } from "../../../../../runtime/care/services/perception/scene-samples";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { testJpeg } from "../../../../support/jpeg";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../../support/nats";
import { CtsPublisher } from "../../../../fakes/cts-publisher";
import { CAMERAS } from "../../../../fakes/cts-script";
import { publishSceneSample, type SceneSampleSpec } from "../../../../fakes/cts-scene-samples";
import { startFakeS3, type FakeS3 } from "../../../../fakes/s3-server";
import { startFakeSceneAnalysisServer, type FakeSceneServer } from "../../../../fakes/scene-analysis-server";
import { startFakeSemanticMemoryServer, type FakeMemoryServer } from "../../../../fakes/semantic-memory-server";

const ACCESS = "CTSKEYFRAMES01";
const SECRET = "s3cr3t/with+odd=chars";
const BUCKET = "cts-keyframes";

describe("scene samples: keyframe, scene analysis, semantic memory", function () {
  this.timeout(60_000);
  let t: TestApp;
  let pub: CtsPublisher;
  let prefix: string;
  let s3: FakeS3;
  let scene: FakeSceneServer;
  let memory: FakeMemoryServer;
  let jpeg: Buffer;
  const clock = new ManualClock(Date.now());
  let n = 0;

  before(async function () {
    await requireNats(this);
    prefix = uniquePrefix("scene");
    [s3, scene, memory, jpeg] = await Promise.all([
      startFakeS3({ accessKey: ACCESS, secretKey: SECRET, region: "eu-central-1" }),
      startFakeSceneAnalysisServer(),
      startFakeSemanticMemoryServer(),
      testJpeg(320, 240, 3),
    ]);
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    t = await startTestApp({
      clock,
      settings: {
        cts: {
          enabled: true,
          nats_url: NATS_URL,
          stream_prefix: prefix,
          cameras: CAMERAS,
          keyframes: { endpoint: s3.url, bucket: BUCKET, access_key: ACCESS, secret_key: SECRET, region: "eu-central-1", timeout_seconds: 2 },
        },
        scene_analysis: { enabled: true, url: scene.url, timeout_seconds: 5 },
        semantic_memory: { enabled: true, url: memory.url, timeout_seconds: 5 },
      },
    });
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  afterEach(() => {
    s3.down = false;
    scene.reset();
    memory.reset();
    Object.assign(t.app.ctx.settings.cts.scene_samples, { max_in_flight: 2, max_queued: 20 });
    t.app.ctx.settings.cts.keyframes.secret_key = SECRET;
  });
  after(async () => {
    await t?.close();
    await pub?.close();
    await Promise.all([s3?.close(), scene?.close(), memory?.close()]);
    if (prefix) await deleteStreams(NATS_URL, prefix);
  });

  /** A sample whose keyframe is in the store (unless `stored` is false). */
  const sample = (over: Partial<SceneSampleSpec> = {}, stored = true): SceneSampleSpec => {
    const id = `kf-${++n}`;
    const s: SceneSampleSpec = {
      keyframe_id: id,
      camera_id: "kitchen-cam",
      minio_key: `keyframes/kitchen-cam/2026/11/27/${id} (1).jpg`,
      at: clock.now(),
      ...over,
    };
    if (stored) s3.put(BUCKET, s.minio_key, jpeg);
    return s;
  };
  const status = async (): Promise<SceneSampleStatus> => {
    const res = await t.get("/health", null);
    assert.equal(res.status, 200, res.text);
    return res.body.cts.scene_samples as SceneSampleStatus;
  };
  /** Waits until `n` samples in all were received and none is in flight or waiting. */
  const settled = (count: number) =>
    eventually(`${count} scene samples settled`, async () => {
      await t.app.cts.idle();
      await t.app.sceneSamples.idle();
      const s = t.app.sceneSamples.status();
      return s.received >= count && s.in_flight === 0 && s.queued === 0 ? s : undefined;
    });

  it("fetches the keyframe with a signed GetObject, analyses it and stores the observation semantic_memory_query finds", async () => {
    const s = sample({ tag_reason: "hazard" });
    await publishSceneSample(pub, s);
    await settled(1);

    const get = s3.requests.at(-1);
    assert.equal(get?.outcome, "ok", "the fake store verified the signature");
    assert.equal(get?.path, objectPath(BUCKET, s.minio_key));
    assert.match(get?.path ?? "", /^\/cts-keyframes\/keyframes\/kitchen-cam\/2026\/11\/27\/kf-\d+%20%281%29\.jpg$/, "path-style, each segment encoded");
    assert.match(
      get?.authorization ?? "",
      /^AWS4-HMAC-SHA256 Credential=CTSKEYFRAMES01\/\d{8}\/eu-central-1\/s3\/aws4_request, ?SignedHeaders=\S*host\S*, ?Signature=[0-9a-f]{64}$/,
    );

    assert.equal(scene.images.length, 1);
    assert.ok(scene.images[0].bytes.equals(jpeg), "scene analysis got the keyframe itself");
    assert.equal(scene.requests[0].headers["x-sensor-id"], "kitchen-cam");
    assert.deepEqual(scene.requests[0].query, { run_detect: "true", run_describe: "true", run_embed: "true", run_hazards: "true" });

    const [obs] = memory.observations;
    assert.equal(obs.room_id, "Kitchen", "the camera's room");
    assert.equal(obs.description, "A kitchen counter with a knife next to the stove.");
    assert.deepEqual(obs.object_list, ["knife", "cup"]);
    assert.deepEqual(obs.hazard_flags, ["knife_near_edge"]);
    assert.equal(obs.source, "scene_intel");
    assert.equal(obs.observed_at, new Date(s.at ?? 0).toISOString(), "observed when the keyframe was captured");
    assert.equal((obs.embedding as number[]).length, 768);

    const found = await searchObservations(
      t.app.ctx.settings.semantic_memory,
      { room_id: "Kitchen", since_minutes: 60, limit: 5, min_confidence: 0 },
      new AbortController().signal,
    );
    assert.ok(found.ok && found.value.some((o) => o.hazard_flags.includes("knife_near_edge")));

    const st = await status();
    assert.equal(st.stored, 1);
    assert.equal(st.received, 1);
    assert.ok(st.last_stored_at);
  });

  it("counts a keyframe store that is down, analyses nothing, and stores again once it is back", async () => {
    const before = t.app.sceneSamples.status();
    s3.down = true;
    await publishSceneSample(pub, sample());
    await settled(before.received + 1);
    assert.equal(scene.requests.length, 0);
    let st = await status();
    assert.equal(st.keyframe_failed, before.keyframe_failed + 1);
    assert.match(st.last_problem ?? "", /HTTP 503: ServiceUnavailable/);

    s3.down = false;
    await publishSceneSample(pub, sample());
    await settled(before.received + 2);
    st = await status();
    assert.equal(st.stored, before.stored + 1);
    assert.equal(memory.observations.length, 1);
  });

  it("counts a keyframe that is not in the store, and one refused for a wrong secret key", async () => {
    const before = t.app.sceneSamples.status();
    await publishSceneSample(pub, sample({}, false));
    await settled(before.received + 1);
    assert.match((await status()).last_problem ?? "", /HTTP 404: NoSuchKey/);

    t.app.ctx.settings.cts.keyframes.secret_key = "not-the-secret";
    await publishSceneSample(pub, sample());
    await settled(before.received + 2);
    const st = await status();
    assert.match(st.last_problem ?? "", /HTTP 403: SignatureDoesNotMatch/);
    assert.equal(st.keyframe_failed, before.keyframe_failed + 2);
    assert.equal(memory.observations.length, 0);
  });

  it("counts scene analysis that is down and semantic memory that is down; nothing is stored", async () => {
    const before = t.app.sceneSamples.status();
    scene.always = { status: 503, detail: "model loading" };
    await publishSceneSample(pub, sample());
    await settled(before.received + 1);
    assert.equal(memory.requests.length, 0);
    let st = await status();
    assert.equal(st.analysis_failed, before.analysis_failed + 1);
    assert.match(st.last_problem ?? "", /scene analysis answered POST \/analyze with HTTP 503: model loading/);

    scene.always = null;
    memory.always = { status: 500, detail: "database is locked" };
    await publishSceneSample(pub, sample());
    await settled(before.received + 2);
    st = await status();
    assert.equal(st.memory_failed, before.memory_failed + 1);
    assert.equal(st.stored, before.stored);
    const health = await t.get("/health", null);
    assert.equal(health.body.status, "ok", "a perception service down does not degrade careflow's health");
  });

  it("lets a sample whose keyframe expired while it waited go without fetching it", async () => {
    const before = t.app.sceneSamples.status();
    t.app.ctx.settings.cts.scene_samples.max_in_flight = 1;
    scene.script({ body: { description: "slow", detections: [], hazards: [], embedding: [] }, delayMs: 800 });
    await publishSceneSample(pub, sample());
    await eventually("the first sample in flight", () => scene.requests.length === 1);
    const s3Before = s3.requests.length;
    await publishSceneSample(pub, sample({ expires_at: clock.now() + 5_000 }));
    await eventually("the second sample waiting", () => t.app.sceneSamples.status().queued === 1);
    clock.advance(10_000);
    await settled(before.received + 2);
    const st = await status();
    assert.equal(st.expired, before.expired + 1);
    assert.equal(st.stored, before.stored + 1);
    assert.equal(s3.requests.length, s3Before, "the expired keyframe was not fetched");
  });

  it("works on at most max_in_flight samples, lets max_queued wait and drops the rest, counted", async () => {
    const before = t.app.sceneSamples.status();
    Object.assign(t.app.ctx.settings.cts.scene_samples, { max_in_flight: 1, max_queued: 1 });
    scene.script({ body: { description: "slow", detections: [], hazards: [], embedding: [] }, delayMs: 800 });
    for (let i = 0; i < 4; i++) await publishSceneSample(pub, sample());
    await settled(before.received + 4);
    const st = await status();
    assert.equal(st.busy, before.busy + 2);
    assert.equal(st.stored, before.stored + 2);
    assert.equal(scene.requests.length, 2, "never more than one analysis at a time, and only two in all");
  });

  it("skips samples while scene analysis is off, saying why", async () => {
    const before = t.app.sceneSamples.status();
    const fetches = s3.requests.length;
    t.app.ctx.settings.scene_analysis.enabled = false;
    try {
      await publishSceneSample(pub, sample());
      await settled(before.received + 1);
    } finally {
      t.app.ctx.settings.scene_analysis.enabled = true;
    }
    const st = await status();
    assert.equal(st.skipped, before.skipped + 1);
    assert.match(st.last_problem ?? "", /scene_analysis.enabled is false/);
    assert.equal(s3.requests.length, fetches, "no keyframe fetched for nothing");
  });
});
