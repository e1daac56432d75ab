import assert from "node:assert/strict";
import net from "node:net";
import { analyzeScene } from "../../../../../runtime/care/services/perception/scene-analysis.client";
import { recentObjects, roomTrend, searchObservations, trendSnapshots } from "../../../../../runtime/care/services/perception/semantic-memory.client";
import { startFakeSceneAnalysisServer, type FakeSceneServer } from "../../../../fakes/scene-analysis-server";
import { startFakeSemanticMemoryServer, type FakeMemoryServer } from "../../../../fakes/semantic-memory-server";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const flags = { run_detect: true, run_describe: true, run_embed: false, run_hazards: true };
const live = () => new AbortController().signal;

/** A port nothing listens on (taken and given back). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe("perception clients against fake services", function () {
  this.timeout(10000);
  let scene: FakeSceneServer;
  let memory: FakeMemoryServer;
  const sceneOn = () => ({ enabled: true, url: scene.url, timeout_seconds: 2 });
  const memoryOn = () => ({ enabled: true, url: memory.url, timeout_seconds: 2 });
  before(async () => {
    scene = await startFakeSceneAnalysisServer();
    memory = await startFakeSemanticMemoryServer();
  });
  afterEach(() => {
    scene.reset();
    memory.reset();
  });
  after(async () => {
    await scene.close();
    await memory.close();
  });

  describe("scene analysis", () => {
    it("posts the image as multipart with the flags in the query and reads the answer", async () => {
      const r = await analyzeScene(sceneOn(), PNG, { ...flags, sensor_id: "kitchen_cam" }, live());
      assert.ok(r.ok);
      assert.equal(r.value.detections[0].label, "knife");
      assert.equal(r.value.hazards[0].name, "knife_near_edge");
      assert.deepEqual(r.value.embedding, [], "run_embed false");
      assert.deepEqual(scene.requests[0].query, { run_detect: "true", run_describe: "true", run_embed: "false", run_hazards: "true" });
      assert.equal(scene.requests[0].headers["x-sensor-id"], "kitchen_cam");
      assert.deepEqual(scene.images[0].bytes, PNG);
      assert.equal(scene.images[0].mimetype, "image/png");
    });

    it("drops items of the wrong shape and defaults missing flags", async () => {
      scene.script({ body: { detections: [{ label: "cup", confidence: 0.5, bbox: [1, 2, 3, 4], class_id: 1 }, { label: 3 }], description: 7 } });
      const r = await analyzeScene(sceneOn(), PNG, flags, live());
      assert.ok(r.ok);
      assert.equal(r.value.detections.length, 1);
      assert.equal(r.value.description, "");
      assert.equal(r.value.detector_available, false);
    });

    it("says why when disabled, down, slow, failing or answering nonsense", async () => {
      const why = async (settings: { enabled: boolean; url: string; timeout_seconds: number }) => {
        const r = await analyzeScene(settings, PNG, flags, live());
        assert.equal(r.ok, false);
        return r.ok ? "" : r.reason;
      };
      assert.match(await why({ ...sceneOn(), enabled: false }), /disabled \(scene_analysis.enabled is false\)/);
      assert.equal(scene.requests.length, 0, "nothing sent while disabled");
      assert.match(await why({ ...sceneOn(), url: `http://127.0.0.1:${await closedPort()}` }), /unreachable: ECONNREFUSED/);
      scene.script({ body: {}, delayMs: 1500 });
      assert.match(await why({ ...sceneOn(), timeout_seconds: 0.2 }), /did not answer within 0.2 s/);
      scene.script({ status: 503, detail: "models loading" });
      assert.match(await why(sceneOn()), /HTTP 503: models loading/);
      scene.script({ raw: "<html>" });
      assert.match(await why(sceneOn()), /not JSON/);
      scene.script({ body: [1, 2] });
      assert.match(await why(sceneOn()), /not a scene analysis/);
    });

    it("throws the step's abort rather than degrading", async () => {
      const ac = new AbortController();
      scene.script({ hang: true });
      const p = analyzeScene(sceneOn(), PNG, flags, ac.signal);
      setTimeout(() => ac.abort(new Error("step cancelled")), 50);
      await assert.rejects(p, /step cancelled/);
    });
  });

  describe("semantic memory", () => {
    it("reads a room's trend, null for a room it has none of", async () => {
      memory.trends = { kitchen: { clutter_score: 1.5, trend_direction: "rising", overall_severity: "warning", anomalies: [{ severity: "warning" }, "x"] } };
      const r = await roomTrend(memoryOn(), "kitchen", live());
      assert.ok(r.ok && r.value);
      assert.equal(r.value.clutter_score, 1.5);
      assert.deepEqual(r.value.persistent_objects, []);
      assert.deepEqual(r.value.anomalies, [{ severity: "warning" }]);
      assert.equal(memory.requests[0].path, "/api/v1/trends/kitchen/current");
      const none = await roomTrend(memoryOn(), "hall", live());
      assert.deepEqual(none, { ok: true, value: null });
    });

    it("reads snapshots, recent objects and searches observations", async () => {
      memory.snapshots = { kitchen: [{ period_start: "2026-11-22T09:00:00Z", unique_object_count: 4, object_counts: { cup: 2, x: "y" } }] };
      memory.objects = { kitchen: [{ label: "cup", observation_count: 2, last_seen_at: "2026-11-22T09:00:00Z" }] };
      memory.observations = [
        { id: 1, room_id: "kitchen", description: "d", object_list: ["cup"], hazard_flags: [] },
        { id: 2, room_id: "hall", description: "e" },
      ];
      const snaps = await trendSnapshots(memoryOn(), "kitchen", 6, live());
      assert.ok(snaps.ok);
      assert.deepEqual(snaps.value[0].object_counts, { cup: 2 });
      assert.equal(memory.requests[0].query.since_hours, "6");
      const objects = await recentObjects(memoryOn(), "kitchen", 30, live());
      assert.ok(objects.ok);
      assert.equal(objects.value[0].label, "cup");
      assert.deepEqual(memory.requests[1].query, { room_id: "kitchen", since_minutes: "30" });
      const found = await searchObservations(memoryOn(), { room_id: "kitchen", since_minutes: 30, limit: 5, min_confidence: 0 }, live());
      assert.ok(found.ok);
      assert.deepEqual(
        found.value.map((o) => o.id),
        [1],
      );
      assert.deepEqual(memory.requests[2].body, {
        room_id: "kitchen",
        since_minutes: 30,
        objects_any: [],
        hazard_flags_any: [],
        query_text: "",
        limit: 5,
        min_confidence: 0,
      });
    });

    it("says why when disabled, failing or answering the wrong kind of body", async () => {
      const off = await roomTrend({ ...memoryOn(), enabled: false }, "kitchen", live());
      assert.deepEqual(off, { ok: false, reason: "semantic memory is disabled (semantic_memory.enabled is false)" });
      memory.always = { status: 500, detail: "database locked" };
      const failing = await recentObjects(memoryOn(), "kitchen", 30, live());
      assert.equal(failing.ok, false);
      assert.match(failing.ok ? "" : failing.reason, /HTTP 500: database locked/);
      memory.always = { body: { not: "a list" } };
      const wrong = await searchObservations(memoryOn(), { room_id: null, since_minutes: 60, limit: 5, min_confidence: 0 }, live());
      assert.match(wrong.ok ? "" : wrong.reason, /not a list of observations/);
    });
  });
});
