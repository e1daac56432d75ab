/**
 * The perception steps through the real app and Node-RED, against fake scene-analysis and
 * semantic-memory services: a camera frame, stored through the media store, runs a rule of
 * scene_analysis, object_trend_analysis, semantic_memory_query, camera_media_poll (which reads
 * the frame back from the store) and cts_window_poll, which has no window with tracking off. With
 * the services up the outputs are theirs; with them failing or disabled the run still
 * completes, the outputs are the spec's empty ones and each step's record says why.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { storeFrame } from "../../../runtime/household/media/media.service";
import { startFakeSceneAnalysisServer, type FakeSceneServer } from "../../fakes/scene-analysis-server";
import { startFakeSemanticMemoryServer, type FakeMemoryServer } from "../../fakes/semantic-memory-server";
import { startTestApp, type TestApp } from "../../support/test-app";

const EMPTY_MEMORY = { recent_objects: [], recent_hazards: [], observations: [], observations_count: 0, summary: "No memory context available." };

/** The household, the rule and one stored frame; answers the frame's media path. */
async function setUp(t: TestApp): Promise<string> {
  const kitchen = (await t.post("/api/v1/rooms", { name: "kitchen" })).body.id;
  await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { room_id: kitchen } });
  const jpeg = await sharp({ create: { width: 32, height: 24, channels: 3, background: "#808080" } })
    .jpeg()
    .toBuffer();
  const frame = await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", room_name: "kitchen", bytes: jpeg });
  const res = await t.post("/api/v1/rules/import", {
    schema_version: 1,
    rule: { name: "Kitchen watch", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "kitchen_cam" } },
    steps: [
      { label: "look", step_type: "scene_analysis", config: { run_embed: true } },
      { label: "trends", step_type: "object_trend_analysis", config: {} },
      { label: "remember", step_type: "semantic_memory_query", config: { within_minutes: 30 } },
      { label: "more frames", step_type: "camera_media_poll", config: {} },
      { label: "window", step_type: "cts_window_poll", config: {} },
    ],
    edges: [
      { source_label: "look", source_port: "main", target_label: "trends" },
      { source_label: "trends", source_port: "main", target_label: "remember" },
      { source_label: "remember", source_port: "main", target_label: "more frames" },
      { source_label: "more frames", source_port: "main", target_label: "window" },
    ],
  });
  assert.equal(res.status, 201, res.text);
  return frame.path;
}

/** Fires the rule with the frame and answers the run's detail once it has ended. */
async function runOnce(t: TestApp, framePath: string): Promise<{ run: any; steps: Record<string, any> }> {
  const before = (await t.get("/api/v1/workflows")).body.length;
  t.app.ctx.bus.publish("sensor.event", {
    sensor_id: "kitchen_cam",
    room_name: "kitchen",
    media_paths: [framePath],
    media_type: "image/jpeg",
    kind: "camera_batch",
    batch_id: 1,
  });
  for (let i = 0; i < 500; i++) {
    const runs = (await t.get("/api/v1/workflows")).body;
    const run = runs.length > before ? runs[0] : undefined;
    if (run && !["running", "pending", "queued"].includes(run.status)) {
      const detail = (await t.get(`/api/v1/workflows/${run.id}/detail`)).body;
      const steps = Object.fromEntries(detail.timeline.filter((s: any) => s.step_type).map((s: any) => [s.step_type, s]));
      return { run, steps };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the run did not end");
}

describe("scenario: perception steps against the scene-analysis and semantic-memory services", function () {
  this.timeout(60000);
  let scene: FakeSceneServer;
  let memory: FakeMemoryServer;
  let t: TestApp;
  let framePath: string;

  before(async () => {
    scene = await startFakeSceneAnalysisServer();
    memory = await startFakeSemanticMemoryServer();
    t = await startTestApp({
      nodeRed: true,
      settings: {
        scene_analysis: { enabled: true, url: scene.url, timeout_seconds: 2 },
        semantic_memory: { enabled: true, url: memory.url, timeout_seconds: 2 },
      },
    });
    framePath = await setUp(t);
  });
  beforeEach(() => {
    scene.reset();
    memory.reset();
  });
  after(async () => {
    await t?.close();
    await scene?.close();
    await memory?.close();
  });

  it("writes what the services answered, reads the frame back from the media store, and the step without a source degrades", async () => {
    memory.trends = { kitchen: { clutter_score: 2.5, trend_direction: "rising", overall_severity: "warning", persistent_objects: ["laundry"] } };
    memory.objects = { kitchen: [{ label: "cup", observation_count: 3, last_seen_at: "2026-11-22T09:00:00Z" }] };
    memory.observations = [{ id: 7, room_id: "kitchen", description: "stove left on", object_list: ["stove"], hazard_flags: ["stove_on"] }];
    const { run, steps } = await runOnce(t, framePath);
    assert.equal(run.status, "completed", JSON.stringify(run));
    const d = run.pipeline_data;
    assert.equal(d.scene_detections[0].label, "knife");
    assert.equal(d.scene_description, "A kitchen counter with a knife next to the stove.");
    assert.equal(d.scene_embedding.length, 768);
    assert.equal(d.scene_hazards[0].name, "knife_near_edge");
    assert.equal(d.scene_detector_available, true);
    assert.equal(scene.images.length, 1);
    assert.equal(scene.images[0].mimetype, "image/jpeg");
    assert.equal(scene.requests[0].headers["x-sensor-id"], "kitchen_cam");
    assert.equal(d.room_trends.kitchen.clutter_score, 2.5);
    assert.equal(d.room_trends_any_warning, true);
    assert.equal(d.room_trends_max_severity, "warning");
    assert.match(d.room_trends_summary, /^kitchen: WARNING clutter \(z=2\.5, rising trend\) \| Persistent: laundry$/);
    assert.equal(d.memory_context.observations_count, 1);
    assert.equal(d.memory_context.recent_hazards[0].hazard_flags[0], "stove_on");
    assert.equal(d.memory_context.summary, "In the past 30 min in kitchen: cup (3x). 1 hazard(s): stove_on.");
    for (const s of ["scene_analysis", "object_trend_analysis", "semantic_memory_query"]) assert.equal(steps[s].warning, null, s);
    // The camera media cache holds the trigger's frame.
    assert.equal(steps.camera_media_poll.status, "success");
    assert.equal(d.count, 1);
    assert.deepEqual(d.sensor_ids, ["kitchen_cam"]);
    assert.match(d.images[0], /^\/api\/v1\/media\/[0-9a-f]{64}\.jpg\?expires=/);
    // The step whose source this installation lacks: recorded, warned, and the run went on.
    assert.equal(steps.cts_window_poll.status, "success");
    assert.equal(d.partial, true);
    assert.match(steps.cts_window_poll.warning, /continuous tracking is off \(cts\.enabled is false\)/);
  });

  it("completes with the spec's empty results when the services fail, each step saying why", async () => {
    scene.always = { status: 503, detail: "models loading" };
    memory.always = { hang: true };
    const { run, steps } = await runOnce(t, framePath);
    assert.equal(run.status, "completed", JSON.stringify(run));
    const d = run.pipeline_data;
    assert.deepEqual(d.scene_detections, []);
    assert.equal(d.scene_description, "");
    assert.deepEqual(d.scene_embedding, []);
    assert.equal(d.scene_detector_available, false);
    assert.deepEqual(d.room_trends, {});
    assert.equal(d.room_trends_any_warning, false);
    assert.deepEqual(d.memory_context, EMPTY_MEMORY);
    assert.match(steps.scene_analysis.warning, /HTTP 503: models loading/);
    assert.match(steps.object_trend_analysis.warning, /did not answer within 2 s/);
    assert.match(steps.semantic_memory_query.warning, /did not answer within 2 s/);
    assert.equal(steps.scene_analysis.status, "success");
  });

  describe("with the services disabled (the default settings)", () => {
    let off: TestApp;
    let offFrame: string;
    before(async () => {
      off = await startTestApp({ nodeRed: true });
      offFrame = await setUp(off);
    });
    after(async () => off?.close());

    it("completes with empty results and says the services are disabled, calling nothing", async () => {
      const { run, steps } = await runOnce(off, offFrame);
      assert.equal(run.status, "completed", JSON.stringify(run));
      assert.deepEqual(run.pipeline_data.scene_hazards, []);
      assert.deepEqual(run.pipeline_data.memory_context, EMPTY_MEMORY);
      assert.match(steps.scene_analysis.warning, /scene_analysis\.enabled is false/);
      assert.match(steps.object_trend_analysis.warning, /semantic_memory\.enabled is false/);
      assert.match(steps.semantic_memory_query.warning, /semantic_memory\.enabled is false/);
      assert.equal(scene.requests.length + memory.requests.length, 0);
    });
  });
});
