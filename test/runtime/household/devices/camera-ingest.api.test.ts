/**
 * Camera upload through the Devices tab, over real HTTP with real JPEGs, on a controllable
 * clock: the answer, rotation, the label filter, what bad input gets (and that nothing is
 * stored), the aggregator's window, batch size and cooldown, and a rule fired by a batch
 * whose frames reach a fake vision model as images.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { listFrames } from "../../../../runtime/household/media/media.service";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../fakes/openai-chat-server";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { KEYS, startTestApp, testAuthSettings, type TestApp } from "../../../support/test-app";

const PORCH = "PORCH001";
const GARDEN = "GARDN001";
const HALL = "HALLC001";

describe("camera upload: the Devices tab, the media store and the aggregator", function () {
  this.timeout(60000);
  let t: TestApp;
  let model: ScriptedServer;
  const clock = new ManualClock(Date.parse("2026-11-24T08:00:00Z"));

  before(async () => {
    model = await startFakeOpenAiChatServer();
    model.fallback = { content: JSON.stringify({ person_fell: false }) };
    const auth = testAuthSettings();
    t = await startTestApp({
      nodeRed: true,
      clock,
      settings: {
        auth: {
          ...auth,
          device_keys: [
            ...(auth.device_keys ?? []),
            { key: PORCH, sensor_id: "porch_cam", device_type: "camera_device", permissions: ["device:camera"] },
            { key: GARDEN, sensor_id: "garden_cam", device_type: "camera_device", permissions: ["device:camera"] },
            { key: HALL, sensor_id: "hall_cam", device_type: "camera_device", permissions: ["device:camera"] },
          ],
        },
        cameras: {
          porch_cam: { rotate: 90 },
          garden_cam: { label_filter: { labels: [" Person ", "DOG"], mode: "all" } },
          hall_cam: { label_filter: { labels: ["person"] } },
        },
        aggregator: { batch_size: 3, window_seconds: 10, cooldown_seconds: 30 },
        llm: { models: [{ id: "vision", api_type: "openai", base_url: model.baseUrl, model: "llava", capabilities: ["text", "vision"] }] },
      },
    });
    const kitchen = (await t.post("/api/v1/rooms", { name: "kitchen" })).body.id;
    await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { room_id: kitchen } });
  });
  after(async () => {
    await t.close();
    await model.close();
  });

  const upload = (key: string | null, body: unknown, query = "") => t.request("POST", `/api/v1/device/camera${query}`, { key, body });
  const frames = (sensor: string) => listFrames(t.app.ctx, { sensor_ids: [sensor] });
  const idle = () => t.app.devices.aggregator.idle();

  it("accepts a frame with its key in the body, stores it with labels, boxes and room, and answers the object name", async () => {
    const jpeg = await testJpeg(640, 480, 1);
    const res = await upload(null, { device_key: KEYS.camera, ...cameraPayload(jpeg, ["person", "chair"]) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, "accepted");
    assert.match(res.body.object_name, /^[0-9a-f]{64}\.jpg$/);
    const [row] = await frames("kitchen_cam");
    assert.equal(row.object_name, res.body.object_name);
    assert.equal(row.room_name, "kitchen");
    assert.deepEqual(row.labels, ["person", "chair"]);
    assert.deepEqual(row.boxes, [
      [10, 10, 100, 100, 0.9, 0],
      [10, 10, 100, 100, 0.9, 1],
    ]);
    assert.equal(row.captured_at, new Date(clock.now()).toISOString());
  });

  it("takes the key from the api_key query and from the header too", async () => {
    const jpeg = await testJpeg(64, 48, 2);
    assert.equal((await upload(null, cameraPayload(jpeg), `?api_key=${KEYS.camera}`)).status, 200);
    assert.equal((await upload(KEYS.camera, cameraPayload(jpeg))).status, 200);
  });

  it("rotates a camera's frames clockwise by its setting and re-encodes them", async () => {
    const res = await upload(PORCH, cameraPayload(await testJpeg(640, 480, 3)));
    assert.equal(res.status, 200, res.text);
    const [row] = await frames("porch_cam");
    const stored = await import("node:fs/promises").then((fs) => fs.readFile(`${t.app.ctx.dataDir}/${row.path}`));
    const meta = await sharp(stored).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["jpeg", 480, 640]);
    // Clockwise: the red left half is now the top half.
    const { data } = await sharp(stored).extract({ left: 240, top: 40, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    assert.ok(data[0] > 150 && data[2] < 100, `top should be red, got ${[...data]}`);
  });

  it("filters by labels (trimmed, case-insensitive, any or all): a miss is answered 'filtered' and neither stored nor batched", async () => {
    const jpeg = await testJpeg(64, 48, 4);
    const miss = await upload(GARDEN, cameraPayload(jpeg, ["person"]));
    assert.equal(miss.status, 200);
    assert.deepEqual(miss.body, { status: "filtered", reason: "label_filter" });
    assert.equal((await frames("garden_cam")).length, 0);
    assert.equal(t.app.devices.aggregator.openBatches().has("garden_cam"), false);
    const hit = await upload(GARDEN, cameraPayload(jpeg, ["  dog", "PERSON "]));
    assert.equal(hit.body.status, "accepted", hit.text);
    assert.deepEqual((await upload(HALL, cameraPayload(jpeg, ["cat"]))).body, { status: "filtered", reason: "label_filter" });
    assert.equal((await upload(HALL, cameraPayload(jpeg, ["cat", "Person"]))).body.status, "accepted");
  });

  it("refuses bad input with a 4xx naming the field, and stores nothing", async () => {
    const before = (await frames("kitchen_cam")).length;
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const cases: Array<[unknown, number, RegExp]> = [
      [{ data: { image: "not base64!!" } }, 422, /^data\.image: not valid base64/],
      [{ data: { image: png.toString("base64") } }, 422, /^data\.image: not a JPEG/],
      [{ data: { image: "" } }, 422, /^data\.image/],
      [{ code: 0 }, 422, /^data:/],
      [{ data: { image: (await testJpeg(8, 8)).toString("base64"), labels: "person" } }, 422, /^data\.labels/],
      [{ data: { image: (await testJpeg(8, 8)).toString("base64"), boxes: [[1, 2]] } }, 422, /^data\.boxes\.0/],
      [["a list"], 422, /^body/],
      [{ data: { image: Buffer.alloc(11 * 1024 * 1024, 0xff).toString("base64") } }, 413, /^data\.image: larger than/],
    ];
    for (const [body, status, detail] of cases) {
      const res = await upload(KEYS.camera, body);
      assert.equal(res.status, status, `${JSON.stringify(body).slice(0, 80)} → ${res.text}`);
      assert.match(res.body.detail, detail);
    }
    // A corrupt JPEG (right header, garbage after) is refused where it is decoded: by the rotation.
    const corrupt = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]);
    const bad = await upload(PORCH, cameraPayload(corrupt));
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.body.detail, /^data\.image: the JPEG could not be decoded/);
    assert.equal((await frames("kitchen_cam")).length, before);
    assert.equal((await frames("porch_cam")).length, 1);
  });

  it("refuses keys of other devices and callers without a key", async () => {
    const body = cameraPayload(await testJpeg(8, 8));
    assert.equal((await upload(null, body)).status, 401);
    assert.equal((await upload(KEYS.terminal, body)).status, 403);
    assert.equal((await upload(KEYS.caregiver, body)).status, 403);
    const admin = await upload(KEYS.admin, body);
    assert.equal(admin.status, 422);
    assert.match(admin.body.detail, /^sensor_id/);
    assert.equal((await upload(KEYS.admin, body, "?sensor_id=kitchen_cam")).status, 200);
  });

  describe("the aggregator", () => {
    let ruleId: number;
    before(async () => {
      await idle();
      // Start from a quiet sensor: let earlier frames' batches flush and their cooldown pass.
      clock.advance(60_000);
      await idle();
      const res = await t.post("/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: "Kitchen look", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "kitchen_cam" } },
        steps: [
          {
            label: "look",
            step_type: "llm_call",
            config: { model_id: "vision", prompt: "What do you see?", image_source: "trigger", response_format: "json_free", output_key: "seen" },
          },
        ],
        edges: [],
      });
      assert.equal(res.status, 201, res.text);
      ruleId = res.body.rule_id;
      clock.advance(60_000);
      await idle();
    });

    const runs = async () => (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
    const settled = async (n: number) => {
      for (let i = 0; i < 300; i++) {
        const list = await runs();
        if (list.length >= n && list.every((r) => !["running", "pending"].includes(r.status))) return list;
        await new Promise((r) => setTimeout(r, 10));
      }
      return runs();
    };
    const send = async (n: number, seed: number) => {
      for (let i = 0; i < n; i++) assert.equal((await upload(KEYS.camera, cameraPayload(await testJpeg(64, 48, seed + i)))).status, 200);
      await idle();
    };

    it("flushes a batch when its window ends, with the frames it gathered reaching the vision model as images", async () => {
      model.reset();
      model.fallback = { content: JSON.stringify({ person_fell: false }) };
      const before = (await runs()).length;
      await send(2, 100);
      assert.equal((await runs()).length, before, "nothing fires while the window is open");
      assert.equal(t.app.devices.aggregator.openBatches().get("kitchen_cam")?.frames, 2);
      clock.advance(9_999);
      await idle();
      assert.equal((await runs()).length, before);
      clock.advance(1);
      await idle();
      const list = await settled(before + 1);
      assert.equal(list.length, before + 1);
      const run = list[0];
      assert.equal(run.status, "completed", JSON.stringify(run));
      assert.equal(run.pipeline_data.media_paths.length, 2);
      assert.equal(run.pipeline_data.sensor_id, "kitchen_cam");
      const sent = model.requests.at(-1)!.body as { messages: Array<{ content: unknown }> };
      const images = JSON.stringify(sent.messages).match(/data:image\/jpeg;base64,/g) ?? [];
      assert.equal(images.length, 2, "both frames reached the model as images");
    });

    it("then cools down: frames are stored but start no batch until cooldown_seconds have passed", async () => {
      const before = (await runs()).length;
      const stored = (await frames("kitchen_cam")).length;
      await send(2, 200);
      assert.equal((await frames("kitchen_cam")).length, stored + 2);
      assert.equal(t.app.devices.aggregator.openBatches().has("kitchen_cam"), false);
      clock.advance(31_000);
      await idle();
      assert.equal((await runs()).length, before);
      await send(1, 210);
      assert.equal(t.app.devices.aggregator.openBatches().get("kitchen_cam")?.frames, 1, "a frame after the cooldown opens a batch");
      clock.advance(10_000);
      await idle();
      assert.equal((await settled(before + 1)).length, before + 1);
      clock.advance(31_000);
      await idle();
    });

    it("flushes at once when batch_size frames have come, before the window ends", async () => {
      const before = (await runs()).length;
      await send(3, 300);
      assert.equal(t.app.devices.aggregator.openBatches().has("kitchen_cam"), false);
      const list = await settled(before + 1);
      assert.equal(list.length, before + 1);
      assert.equal(list[0].pipeline_data.media_paths.length, 3);
      clock.advance(31_000);
      await idle();
    });

    it("lists recent ingest activity: frames received and rules triggered", async () => {
      const res = await t.get("/api/v1/pipeline/ingest/activity?limit=5", KEYS.caregiver);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.length, 5);
      const kinds = new Set(res.body.map((e: { event_type: string }) => e.event_type));
      assert.ok(kinds.has("frame_received") && kinds.has("rule_triggered"), JSON.stringify(res.body));
      for (const e of res.body) {
        assert.equal(typeof e.id, "string");
        assert.ok(!Number.isNaN(Date.parse(e.timestamp)));
      }
      const ruleEvent = res.body.find((e: { event_type: string }) => e.event_type === "rule_triggered");
      assert.equal(ruleEvent.rule_name, "Kitchen look");
      assert.equal(ruleEvent.trigger_type, "sensor_event");
      assert.equal((await t.get("/api/v1/pipeline/ingest/activity?limit=0")).status, 422);
    });
  });
});
