/**
 * `recognition.backend: "remote"` against a fake identification service speaking the spec's
 * protocol; and a model that fails to load degrades the step instead of crashing.
 */
import assert from "node:assert/strict";
import { appHandlerContext } from "../../../support/app-handler-context";
import { WorkerFaceEngine } from "../../../../runtime/household/identity/builtin-engine";
import { storeFrame } from "../../../../runtime/household/media/media.service";
import { handler } from "../../../../nodes/steps/person_identification/person_identification.handler";
import { spec } from "../../../../nodes/steps/person_identification/person_identification.node";
import { startFakeIdentificationServer, type FakeIdentificationServer } from "../../../fakes/identification-server";
import { sampleFrame } from "../../../support/face-photos";
import { startTestApp, type TestApp } from "../../../support/test-app";

const input = (paths: string[]) => ({
  pipeline_data: {},
  trigger: {
    trigger_type: "sensor_event",
    sensor_id: "kitchen_cam",
    room_name: "kitchen",
    media_paths: paths,
    media_type: "image",
    webhook_payload: null,
    occupancy_duration_minutes: null,
  },
  step: { id: 1, label: "who", step_type: "person_identification" },
  execution_id: 1,
  rule_id: 1,
  idempotency_key: "1:1:1",
});

describe("identity: the remote backend (fake identification service)", function () {
  this.timeout(60_000);
  let fake: FakeIdentificationServer;
  let t: TestApp;
  before(async () => {
    fake = await startFakeIdentificationServer();
    t = await startTestApp({ settings: { recognition: { backend: "remote", url: fake.url, threshold: 0.4, save_guest_images: true } } });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Grandma Rose" });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  it("enrolls through the service and identifies a batch with /identify-batch", async () => {
    const form = new FormData();
    for (let i = 0; i < 5; i++) form.append("photos", new Blob([await sampleFrame(1, 200 + i)]), `p${i}.jpg`);
    const res = await fetch(`${t.baseUrl}/api/v1/persons/rose/enroll`, { method: "POST", headers: { "X-API-Key": "test-admin-key-0001" }, body: form });
    assert.equal(res.status, 201);
    assert.equal(fake.enrolled.get("rose")?.embedding_count, 5);
    assert.equal((await t.get("/api/v1/persons/rose/enrollment")).body.embedding_count, 5);

    const paths = [];
    for (const w of [320, 360]) paths.push((await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", bytes: await sampleFrame(2, w) })).path);
    const config = spec.config.parse({ include_motion: true });
    const r = await handler(appHandlerContext(t.app.ctx), input(paths), config);
    assert.notEqual(r.success, false, r.warning);
    const dets = (r.data?.person_detections ?? []) as any[];
    assert.equal(dets.length, 4);
    assert.deepEqual(
      dets.map((d) => [d.identity, d.person_id]),
      [
        ["Grandma Rose", "rose"],
        ["unknown", null],
        ["Grandma Rose", "rose"],
        ["unknown", null],
      ],
    );
    const batch = fake.requests.find((q) => q.path === "/identify-batch");
    assert.equal(batch?.body.threshold, "0.4");
    assert.equal(batch?.body.save_guest_images, "true");
    assert.equal([...fake.guests.values()].flat().length, 2);

    const one = await t.app.services.identity.identify(
      { media_paths: [paths[0]], sensor_id: "kitchen_cam", room_name: null, include_annotated_image: false, include_motion: false },
      new AbortController().signal,
    );
    assert.ok(one.ok);
    assert.ok(fake.requests.some((q) => q.path === "/identify"));
  });

  it("degrades when the service is down: success=false, empty results, the reason", async () => {
    fake.always = { status: 503, detail: "busy" };
    const path = (await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", bytes: await sampleFrame(3, 300) })).path;
    const r = await handler(appHandlerContext(t.app.ctx), input([path]), spec.config.parse({}));
    fake.always = null;
    assert.equal(r.success, false);
    assert.deepEqual(r.data?.person_detections, []);
    assert.match(r.warning ?? "", /identification service answered 503/);
  });
});

describe("identity: a face model that fails to load", function () {
  this.timeout(60_000);
  it("rejects with why, the process goes on, and the engine can be closed", async () => {
    const before = process.env.CAREFLOW_FACE_MODEL_DIR;
    process.env.CAREFLOW_FACE_MODEL_DIR = "/nonexistent/face-models";
    const engine = new WorkerFaceEngine();
    try {
      await assert.rejects(engine.detect([await sampleFrame(1, 200)]), /ENOENT|no such file|nonexistent/);
    } finally {
      if (before === undefined) delete process.env.CAREFLOW_FACE_MODEL_DIR;
      else process.env.CAREFLOW_FACE_MODEL_DIR = before;
      await engine.close();
    }
  });
});
