/**
 * The first half of the frame-to-spoken-alert trace, over real HTTP: JPEG frames stored
 * through the media service start a run of a camera rule (a vision llm_call against a fake
 * model, then scene_analysis against a fake service); the run's detail and its envelope list
 * the frames that started it and, per model step, the frames it sent, each with a signed URL
 * that serves the JPEG. Once the retention sweep has deleted a frame it is still listed,
 * without a URL and with a note. Time is a ManualClock.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { objectNameOf } from "../../../../../../runtime/household/media/frame-views";
import { storeFrame, sweepExpired, type StoredFrame } from "../../../../../../runtime/household/media/media.service";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../../fakes/openai-chat-server";
import { startFakeSceneAnalysisServer, type FakeSceneServer } from "../../../../../fakes/scene-analysis-server";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { eventually } from "../../../../../support/eventually";

const jpeg = (width: number, background: string): Promise<Buffer> =>
  sharp({ create: { width, height: 48, channels: 3, background } })
    .jpeg()
    .toBuffer();

describe("run frames: the frames that started a run and the images its model steps sent", function () {
  this.timeout(60_000);
  const clock = new ManualClock(Date.parse("2026-11-22T06:30:00Z"));
  let t: TestApp;
  let model: ScriptedServer;
  let scene: FakeSceneServer;
  let first: StoredFrame;
  let second: StoredFrame;
  let hall: StoredFrame;
  const bytes: Record<string, Buffer> = {};
  let runId: number;

  before(async () => {
    model = await startFakeOpenAiChatServer();
    model.fallback = { content: JSON.stringify({ person_fell: true }) };
    scene = await startFakeSceneAnalysisServer();
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: {
        llm: { models: [{ id: "vision", api_type: "openai", base_url: model.baseUrl, model: "llava", capabilities: ["text", "vision"] }] },
        scene_analysis: { enabled: true, url: scene.url, timeout_seconds: 2 },
      },
    });
    const hallway = (await t.post("/api/v1/rooms", { name: "Hallway" })).body.id;
    for (const sensor of ["front_cam", "hall_cam"]) {
      const made = await t.post("/api/v1/sensors", { sensor_id: sensor, name: sensor, sensor_type: "camera", source: "device_key", room_id: hallway });
      assert.equal(made.status, 201, made.text);
    }

    // Another camera's frame first, so it is there for the model step's additional images.
    const ctx = t.app.ctx;
    const store = async (sensor_id: string, width: number, colour: string, labels: string[]) => {
      const b = await jpeg(width, colour);
      const stored = await storeFrame(ctx, { sensor_id, room_name: "Hallway", bytes: b, content_type: "image/jpeg", labels });
      bytes[stored.object_name] = b;
      return stored;
    };
    hall = await store("hall_cam", 80, "#2060c0", []);
    clock.advance(2_000);
    first = await store("front_cam", 64, "#c02020", ["person"]);
    clock.advance(500);
    second = await store("front_cam", 72, "#20a040", ["person", "dog"]);
    // A file put under media/ by hand: no object of the store, so no frame in the trace.
    fs.mkdirSync(path.join(ctx.dataDir, "media", "front_cam"), { recursive: true });
    fs.writeFileSync(path.join(ctx.dataDir, "media", "front_cam", "by-hand.jpg"), await jpeg(32, "#777777"));

    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Front door watch", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "front_cam" } },
      steps: [
        {
          label: "look",
          step_type: "llm_call",
          config: {
            model_id: "vision",
            prompt: "Did someone fall? Answer as JSON.",
            image_source: "both",
            max_images: 4,
            additional_sensor_ids: ["hall_cam"],
            images_per_sensor: 1,
            response_format: "json_free",
            output_key: "vision_response",
          },
        },
        { label: "scene", step_type: "scene_analysis", config: { max_images: 3 } },
        { label: "fell?", step_type: "condition", config: { expression: "vision_response.person_fell == true" } },
      ],
      edges: [
        { source_label: "look", source_port: "main", target_label: "scene" },
        { source_label: "scene", source_port: "main", target_label: "fell?" },
      ],
    });
    assert.equal(res.status, 201, res.text);

    // The camera batch: two stored frames and the hand-placed file.
    t.app.ctx.bus.publish("sensor.event", {
      kind: "camera_batch",
      batch_id: 1,
      sensor_id: "front_cam",
      room_name: "Hallway",
      media_paths: [first.path, second.path, "media/front_cam/by-hand.jpg"],
      media_type: "image/jpeg",
    });
    const run = await eventually("the run ended", async () => {
      const r = (await t.get("/api/v1/workflows")).body[0];
      return r && !["running", "waiting"].includes(r.status) ? r : undefined;
    });
    assert.equal(run.status, "completed", JSON.stringify(run));
    runId = run.id;
  });
  after(async () => {
    await t?.close();
    await model?.close();
    await scene?.close();
  });

  /** Fetches a signed URL with no API key: the JPEG it serves. */
  const fetchFrame = async (url: string): Promise<{ status: number; type: string | null; body: Buffer }> => {
    const res = await fetch(new URL(url, t.baseUrl));
    return { status: res.status, type: res.headers.get("content-type"), body: Buffer.from(await res.arrayBuffer()) };
  };
  const assertServes = async (frame: { object_name: string; url: string | null }) => {
    assert.ok(frame.url, `a URL for ${frame.object_name}`);
    assert.match(frame.url, new RegExp(`^/api/v1/media/${frame.object_name.replace(".", "\\.")}\\?expires=\\d+&sig=[A-Za-z0-9_-]{43}$`));
    const got = await fetchFrame(frame.url);
    assert.equal(got.status, 200);
    assert.equal(got.type, "image/jpeg");
    assert.ok(got.body.equals(bytes[frame.object_name]), "the stored JPEG's own bytes");
    assert.equal((await sharp(got.body).metadata()).format, "jpeg");
  };

  it("lists the frames that started the run, with camera, room, time, labels and a signed URL that serves the JPEG", async () => {
    const detail = (await t.get(`/api/v1/workflows/${runId}/detail`)).body;
    assert.deepEqual(detail.trigger_context.media_paths, [first.path, second.path, "media/front_cam/by-hand.jpg"], "the trigger as it came");
    assert.deepEqual(
      detail.frames.map((f: any) => f.object_name),
      [first.object_name, second.object_name],
      "the store's frames, the hand-placed file left out",
    );
    const [a, b] = detail.frames;
    assert.equal(a.sensor_id, "front_cam");
    assert.equal(a.room_name, "Hallway");
    assert.equal(a.captured_at, "2026-11-22T06:30:02.000Z");
    assert.deepEqual(a.labels, ["person"]);
    assert.deepEqual(b.labels, ["person", "dog"]);
    assert.equal(a.note, undefined);
    for (const f of detail.frames) await assertServes(f);
    const widths = await Promise.all(detail.frames.map(async (f: any) => (await sharp((await fetchFrame(f.url)).body).metadata()).width));
    assert.deepEqual(widths, [64, 72]);
  });

  it("gives each model step the frames it sent, and the other steps none", async () => {
    const detail = (await t.get(`/api/v1/workflows/${runId}/detail`)).body;
    const step = (type: string) => detail.timeline.find((s: any) => s.step_type === type);
    const look = step("llm_call");
    // The trigger's images, then the other camera's newest.
    assert.deepEqual(look.trace.images, [first.path, second.path, "media/front_cam/by-hand.jpg", hall.path], "the trace keeps the paths it sent");
    assert.deepEqual(
      look.images.map((f: any) => [f.object_name, f.sensor_id]),
      [
        [first.object_name, "front_cam"],
        [second.object_name, "front_cam"],
        [hall.object_name, "hall_cam"],
      ],
    );
    for (const f of look.images) await assertServes(f);
    const sent = JSON.stringify(model.requests[0].body.messages);
    assert.equal((sent.match(/data:image\/jpeg;base64,/g) ?? []).length, 4, "the model got all four images");

    const sceneStep = step("scene_analysis");
    assert.deepEqual(
      sceneStep.images.map((f: any) => f.object_name),
      [first.object_name, second.object_name],
      "scene analysis: the trigger's frames it read (the hand-placed file has no frame)",
    );
    for (const f of sceneStep.images) await assertServes(f);
    assert.equal(scene.images.length, 3, "the service got all three images");
    assert.deepEqual(step("condition").images, []);
  });

  it("adds the same to the run's envelope, and only to the one-run envelope", async () => {
    const detail = (await t.get(`/api/v1/workflows/${runId}/detail`)).body;
    const env = (await t.get(`/api/v1/pipeline/runs/${runId}`)).body;
    assert.equal(env.execution_id, runId);
    assert.deepEqual(env.frames, detail.frames);
    assert.deepEqual(
      env.steps.map((s: any) => [s.type, s.images.length]),
      [
        ["llm_call", 3],
        ["scene_analysis", 2],
        ["condition", 0],
      ],
    );
    assert.deepEqual(env.steps[0].images, detail.timeline[0].images);
    const listed = (await t.get("/api/v1/pipeline/runs")).body.find((e: any) => e.execution_id === runId);
    assert.equal(listed.frames, undefined, "a list of runs signs no URLs");
    assert.equal(listed.steps[0].images, undefined);
  });

  it("still lists a frame the retention sweep deleted, without a URL and with a note", async () => {
    const before = (await t.get(`/api/v1/workflows/${runId}/detail`)).body.frames[0];
    clock.advance(25 * 3_600_000);
    await sweepExpired(t.app.ctx);
    const detail = (await t.get(`/api/v1/workflows/${runId}/detail`)).body;
    assert.deepEqual(
      detail.frames.map((f: any) => f.object_name),
      [first.object_name, second.object_name],
    );
    for (const f of [...detail.frames, ...detail.timeline[0].images]) {
      assert.equal(f.url, null);
      assert.equal(f.sensor_id, null);
      assert.match(f.note, /^no longer kept: frames are deleted 24 h after capture/);
    }
    assert.equal((await fetchFrame(before.url)).status, 403, "the old URL has expired too");
  });
});

describe("run frames: which media paths are frames", () => {
  const name = `${"0f".repeat(32)}.jpg`;
  const dataDir = path.resolve("/srv/careflow/data");
  it("takes the store's own path of an object, relative or under the data dir, and nothing else", () => {
    assert.equal(objectNameOf(dataDir, `media/0f/0f/${name}`), name);
    assert.equal(objectNameOf(dataDir, path.join(dataDir, "media", "0f", "0f", name)), name);
    assert.equal(objectNameOf(dataDir, `./media/0f/0f/${name}`), name);
    for (const other of [
      `media/0f/0e/${name}`,
      `media/${name}`,
      `other/0f/0f/${name}`,
      `../data2/media/0f/0f/${name}`,
      `/elsewhere/media/0f/0f/${name}`,
      "media/kitchen_cam/frame1.jpg",
      `media/0f/0f/${name.toUpperCase()}`,
      `media/0f/0f/${"0f".repeat(32)}.bmp`,
    ])
      assert.equal(objectNameOf(dataDir, other), null, other);
  });
});
