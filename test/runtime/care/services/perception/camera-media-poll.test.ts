/**
 * camera_media_poll through the real app and Node-RED, on a ManualClock: JPEG frames of three
 * cameras in two rooms are stored through the media service, rules of one poll step run by
 * `POST /rules/{id}/execute`, and the URLs they return are fetched over HTTP without a key.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { listFrames, storeFrame } from "../../../../../runtime/household/media/media.service";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";

const T0 = Date.parse("2026-03-02T08:00:00Z");
const MIN = 60_000;

/** A distinct 32x24 JPEG per frame, so each frame is its own object and its URL tells which frame it is. */
let shade = 0;
const jpeg = (): Promise<Buffer> => {
  shade += 1;
  return sharp({ create: { width: 32, height: 24, channels: 3, background: { r: (shade * 37) % 256, g: (shade * 91) % 256, b: (shade * 13) % 256 } } })
    .jpeg()
    .toBuffer();
};

interface Stored {
  name: string;
  bytes: Buffer;
  object_name: string;
}

async function household(t: TestApp): Promise<void> {
  const kitchen = (await t.post("/api/v1/rooms", { name: "Kitchen" })).body.id;
  const hall = (await t.post("/api/v1/rooms", { name: "Hall" })).body.id;
  for (const [sensor_id, room_id] of [
    ["kitchen_cam", kitchen],
    ["pantry_cam", kitchen],
    ["hall_cam", hall],
  ] as const) {
    const res = await t.request("PUT", `/api/v1/sensors/${sensor_id}`, { body: { room_id } });
    if (res.status === 404) assert.equal((await t.post("/api/v1/sensors", { sensor_id, sensor_type: "camera", room_id })).status, 201);
    else assert.equal(res.status, 200, res.text);
  }
}

/** Imports a manual rule of the given steps in a row and answers its id. */
async function rule(t: TestApp, name: string, steps: Array<{ step_type: string; config: Record<string, unknown> }>): Promise<number> {
  const labelled = steps.map((s, i) => ({ label: `s${i}`, schema_version: 1, ...s }));
  const edges = labelled.slice(1).map((s, i) => ({ source_label: `s${i}`, source_port: "main", target_label: s.label }));
  const res = await t.post("/api/v1/rules/import", { schema_version: 1, rule: { name, trigger_type: "manual" }, steps: labelled, edges });
  assert.equal(res.status, 201, res.text);
  return res.body.rule_id;
}

/** Runs the rule once and answers the ended run and its steps' records by label. */
async function run(t: TestApp, ruleId: number): Promise<{ run: any; steps: Record<string, any> }> {
  const res = await t.post(`/api/v1/rules/${ruleId}/execute`);
  assert.equal(res.status, 201, res.text);
  const got = await eventually("the run to end", async () => {
    const r = (await t.get(`/api/v1/workflows/${res.body.execution_id}`)).body;
    return ["running", "pending", "queued"].includes(r.status) ? undefined : r;
  });
  const detail = (await t.get(`/api/v1/workflows/${got.id}/detail`)).body;
  return { run: got, steps: Object.fromEntries(detail.timeline.filter((s: any) => s.label).map((s: any) => [s.label, s])) };
}

describe("camera_media_poll over the media store", function () {
  this.timeout(60_000);
  let t: TestApp;
  let clock: ManualClock;
  const frames = new Map<string, Stored>();

  /** Stores a frame `agoMs` before T0 and remembers it by name. */
  async function frame(name: string, sensor_id: string, room_name: string, agoMs: number): Promise<void> {
    const bytes = await jpeg();
    const stored = await storeFrame(t.app.ctx, { sensor_id, room_name, bytes, content_type: "image/jpeg", captured_at: new Date(T0 - agoMs).toISOString() });
    frames.set(name, { name, bytes, object_name: stored.object_name });
  }

  /** The frames a poll's URLs name, in the order given. */
  const named = (images: string[]): string[] =>
    images.map((url) => {
      const object = /\/api\/v1\/media\/([^?]+)\?/.exec(url)?.[1];
      return [...frames.values()].find((f) => f.object_name === object)?.name ?? `unknown ${url}`;
    });

  const poll = async (name: string, config: Record<string, unknown>): Promise<{ run: any; steps: Record<string, any> }> =>
    run(t, await rule(t, name, [{ step_type: "camera_media_poll", config }]));

  before(async () => {
    clock = new ManualClock(T0);
    t = await startTestApp({ nodeRed: true, clock });
    await household(t);
    // kitchen_cam: five frames in the last five minutes, one ten minutes ago, one past the 24 h retention.
    await frame("k-25h", "kitchen_cam", "Kitchen", 25 * 60 * MIN);
    await frame("k-10m", "kitchen_cam", "Kitchen", 10 * MIN);
    await frame("k-4.5m", "kitchen_cam", "Kitchen", 4.5 * MIN);
    await frame("k-3m", "kitchen_cam", "Kitchen", 3 * MIN);
    await frame("k-2m", "kitchen_cam", "Kitchen", 2 * MIN);
    await frame("k-1m", "kitchen_cam", "Kitchen", 1 * MIN);
    await frame("k-0.5m", "kitchen_cam", "Kitchen", 0.5 * MIN);
    // pantry_cam, also in the kitchen (its room spelled as another camera sent it).
    await frame("p-2.5m", "pantry_cam", "KITCHEN", 2.5 * MIN);
    await frame("p-0.75m", "pantry_cam", "KITCHEN", 0.75 * MIN);
    // hall_cam, and a frame stamped a minute ahead of the clock.
    await frame("h-3.5m", "hall_cam", "Hall", 3.5 * MIN);
    await frame("h-1.5m", "hall_cam", "Hall", 1.5 * MIN);
    await frame("h-0.25m", "hall_cam", "Hall", 0.25 * MIN);
    await frame("h+1m", "hall_cam", "Hall", -1 * MIN);
  });
  after(() => t?.close());

  it("reads every camera by default: its newest three of the last five minutes, oldest first, camera by camera", async () => {
    const { run: r, steps } = await poll("All cameras", {});
    assert.equal(r.status, "completed", JSON.stringify(r));
    assert.equal(steps.s0.status, "success");
    const d = r.pipeline_data;
    assert.deepEqual(named(d.images), ["h-3.5m", "h-1.5m", "h-0.25m", "k-2m", "k-1m", "k-0.5m", "p-2.5m", "p-0.75m"]);
    assert.equal(d.count, 8);
    assert.deepEqual(d.sensor_ids, ["hall_cam", "kitchen_cam", "pantry_cam"]);
    assert.deepEqual(d.room_names, ["Hall", "Kitchen"], "each room once, in any spelling");
    assert.equal(d.since_minutes, 5);
    assert.equal(d.polled_at, "2026-03-02T08:00:00.000Z");
  });

  it("answers URLs that fetch the images over HTTP without an API key", async () => {
    const { run: r } = await poll("Fetchable", { room_names: ["Hall"] });
    const images: string[] = r.pipeline_data.images;
    assert.equal(images.length, 3);
    for (const url of images) {
      assert.match(url, /^\/api\/v1\/media\/[0-9a-f]{64}\.jpg\?expires=\d+&sig=[A-Za-z0-9_-]{43}$/);
      const res = await fetch(t.baseUrl + url);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get("content-type"), "image/jpeg");
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.deepEqual(bytes, frames.get(named([url])[0])!.bytes);
      assert.equal((await sharp(bytes).metadata()).format, "jpeg");
    }
    // The signature is the credential: the same object without it is refused.
    assert.equal((await fetch(t.baseUrl + images[0].split("?")[0])).status, 403);
  });

  it("applies sensor_frame_limits over images_per_sensor and caps the total at max_images, newest first when not chronological", async () => {
    const { run: r } = await poll("Limits", {
      images_per_sensor: 1,
      sensor_frame_limits: { kitchen_cam: 5, pantry_cam: 0 },
      max_images: 4,
      chronological: false,
    });
    // Candidates: hall 1, kitchen 5, pantry none; the cap takes each camera's newest first.
    assert.deepEqual(named(r.pipeline_data.images), ["h-0.25m", "k-0.5m", "k-1m", "k-2m"]);
    assert.equal(r.pipeline_data.count, 4);
    assert.deepEqual(r.pipeline_data.sensor_ids, ["hall_cam", "kitchen_cam"]);
  });

  it("never returns more than max_images", async () => {
    const { run: r } = await poll("Cap", { images_per_sensor: 10, since_minutes: 60 });
    assert.equal(r.pipeline_data.count, 10);
    assert.equal(r.pipeline_data.images.length, 10);
    assert.equal(new Set(r.pipeline_data.images).size, 10);
  });

  it("reads the cameras of room_names (any case), and sensor_ids first when both are given", async () => {
    const kitchen = (await poll("Kitchen only", { room_names: ["kitchen"], images_per_sensor: 1 })).run.pipeline_data;
    assert.deepEqual(named(kitchen.images), ["k-0.5m", "p-0.75m"]);
    assert.deepEqual(kitchen.room_names, ["Kitchen"]);

    const both = (await poll("Pantry cam and the hall", { sensor_ids: ["pantry_cam"], room_names: ["Hall"], images_per_sensor: 1 })).run.pipeline_data;
    assert.deepEqual(named(both.images), ["p-0.75m", "h-0.25m"], "sensor_ids in their order, then the room's cameras");
    assert.deepEqual(both.sensor_ids, ["pantry_cam", "hall_cam"]);
    assert.deepEqual(both.room_names, ["KITCHEN", "Hall"], "the rooms as the frames carry them");

    const one = (await poll("One camera", { sensor_ids: ["hall_cam"] })).run.pipeline_data;
    assert.deepEqual(one.sensor_ids, ["hall_cam"]);
  });

  it("keeps to since_minutes on the app's clock, and never past the retention", async () => {
    const wide = (await poll("Wide", { sensor_ids: ["kitchen_cam"], images_per_sensor: 20, since_minutes: 2000 })).run.pipeline_data;
    assert.deepEqual(named(wide.images), ["k-10m", "k-4.5m", "k-3m", "k-2m", "k-1m", "k-0.5m"], "not the frame older than 24 h");
    assert.equal(wide.since_minutes, 2000);
    const stored = await listFrames(t.app.ctx, { sensor_ids: ["kitchen_cam"] });
    assert.ok(
      stored.some((f) => f.object_name === frames.get("k-25h")!.object_name),
      "the old frame is still stored (no sweep yet): the poll left it out itself",
    );

    const id = await rule(t, "Window", [{ step_type: "camera_media_poll", config: { images_per_sensor: 20, room_names: ["Kitchen", "Hall"] } }]);
    const before = (await run(t, id)).run.pipeline_data;
    assert.deepEqual(named(before.images), ["h-3.5m", "h-1.5m", "h-0.25m", "k-4.5m", "k-3m", "k-2m", "k-1m", "k-0.5m", "p-2.5m", "p-0.75m"]);

    clock.advance(1 * MIN);
    const after = (await run(t, id)).run.pipeline_data;
    assert.equal(after.polled_at, "2026-03-02T08:01:00.000Z");
    assert.deepEqual(
      named(after.images),
      ["h-3.5m", "h-1.5m", "h-0.25m", "h+1m", "k-3m", "k-2m", "k-1m", "k-0.5m", "p-2.5m", "p-0.75m"],
      "a minute on: the kitchen's oldest has left the window and the hall's frame stamped ahead has entered it",
    );
  });
});

describe("camera_media_poll with the aggregator off", function () {
  this.timeout(60_000);
  let t: TestApp;

  before(async () => {
    t = await startTestApp({ nodeRed: true, settings: { aggregator: { enabled: false } } });
    await household(t);
    await storeFrame(t.app.ctx, { sensor_id: "kitchen_cam", room_name: "Kitchen", bytes: await jpeg() });
  });
  after(() => t?.close());

  it("fails the step with an empty payload and says why; the run goes on", async () => {
    const id = await rule(t, "Poll then decide", [
      { step_type: "camera_media_poll", config: { room_names: ["Kitchen"] } },
      { step_type: "condition", config: { expression: "true" } },
    ]);
    const { run: r, steps } = await run(t, id);
    assert.equal(r.status, "completed", JSON.stringify(r));
    assert.equal(steps.s0.status, "failed");
    assert.match(steps.s0.error, /aggregator\.enabled is false/);
    assert.match(steps.s0.warning, /^no camera images: .*aggregator\.enabled is false/);
    for (const key of ["images", "count", "sensor_ids", "room_names", "since_minutes", "polled_at"]) assert.ok(!(key in r.pipeline_data), key);
    assert.equal(steps.s1.status, "success", "the step after it ran");
    assert.equal(r.pipeline_data.condition.result, true);
  });
});
