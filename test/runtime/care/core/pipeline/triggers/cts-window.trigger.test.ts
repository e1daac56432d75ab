/** cts_window rules fire per window of the app clock when the stored tracking frames meet their thresholds. */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { CtsWindowTrigger, LATE_MS, SETTLE_MS } from "../../../../../../runtime/care/core/pipeline/triggers/cts-window.trigger";
import { storeFrame } from "../../../../../../runtime/household/cts/cts-frames.store";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { FakeFirer } from "./trigger-fixture";

// 2 s into a 10 s window; nothing listens on port 1, so tracking is on without a broker.
const T0 = Date.parse("2026-11-22T03:00:02Z");
const CTS_ON = { cts: { enabled: true, nats_url: "nats://127.0.0.1:1" } };

const person = (identity_id: string | null, ph_id = "ph-1") => ({
  ph_id,
  identity_id,
  confidence: 0.9,
  identity_confidence: identity_id ? 0.9 : null,
  posture: "walking",
  bbox: null,
});

describe("triggers: cts_window", () => {
  let t: TestApp;
  let clock: ManualClock;
  let firer: FakeFirer;
  let trigger: CtsWindowTrigger;

  const start = async (settings: Record<string, unknown> = CTS_ON) => {
    clock = new ManualClock(T0);
    t = await startTestApp({ clock, settings });
    for (const name of ["Hallway", "Kitchen"]) assert.equal((await t.post("/api/v1/rooms", { name })).status, 201);
    firer = new FakeFirer(clock);
    trigger = new CtsWindowTrigger(t.app.ctx, firer);
  };
  const rule = async (body: Record<string, unknown>): Promise<number> => {
    const res = await t.post("/api/v1/rules", { trigger_type: "cts_window", ...body });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const frame = (camera_id: string, room_name: string, offsetMs: number, people: ReturnType<typeof person>[]) =>
    storeFrame(t.app.ctx.db, { event_id: null, camera_id, room_name, event_time: new Date(T0 + offsetMs).toISOString(), detections: people });
  /** What the app does once the runtime runs the changed flows (here without Node-RED). */
  const rulesChanged = async () => {
    t.app.ctx.bus.publish("rules.changed", {});
    await trigger.idle();
  };
  const advance = async (ms: number) => {
    clock.advance(ms);
    await trigger.idle();
  };

  afterEach(async () => {
    trigger?.stop();
    await t?.close();
  });

  it("fires a rule once its window closed with a known person in its rooms, the window as payload", async () => {
    await start();
    const hall = await rule({ name: "Someone in the hallway", cts_window_config: { duration_s: 10, rooms: ["Hallway"] } });
    const kitchen = await rule({ name: "Someone in the kitchen", cts_window_config: { duration_s: 10, rooms: ["Kitchen"] } });
    trigger.start();
    await trigger.idle();
    assert.deepEqual(
      trigger.armed(),
      new Map([
        [hall, Date.parse("2026-11-22T03:00:10Z")],
        [kitchen, Date.parse("2026-11-22T03:00:10Z")],
      ]),
    );
    for (let i = 0; i < 12; i++) await frame("hall-cam", "Hallway", i * 500, [person("rose")]);
    await frame("hall-cam", "Hallway", 8_000, [person("rose"), person(null, "ph-2")]); // 03:00:10: the next window

    await advance(8_000 - 1);
    assert.equal(firer.calls.length, 0, "the window has not closed");
    await advance(SETTLE_MS + 1);
    assert.deepEqual(firer.ruleIds(), [hall], "the kitchen saw nobody");
    const { trigger: ctxt, at } = firer.calls[0];
    assert.equal(at, Date.parse("2026-11-22T03:00:10Z") + SETTLE_MS);
    assert.equal(ctxt.trigger_type, "cts_window");
    assert.equal(ctxt.room_name, "Hallway");
    const w = ctxt.webhook_payload as Record<string, any>;
    assert.equal(w.window_start, "2026-11-22T03:00:00.000Z");
    assert.equal(w.window_end, "2026-11-22T03:00:10.000Z");
    assert.deepEqual(w.cameras, ["hall-cam"]);
    assert.deepEqual(w.rooms, ["Hallway"]);
    assert.equal(w.frames.length, 6, "one frame per second from 03:00:02 to 03:00:07");
    assert.deepEqual(w.summary, { distinct_identities: 1, detection_count: 6, rooms: ["Hallway"] });
    assert.equal(w.partial, false);
    assert.match(w.trigger_id, /^cts-window-/);

    await advance(10_000);
    assert.equal(firer.calls.length, 2, "the next window has the frame on its boundary");
    assert.deepEqual((firer.calls[1].trigger.webhook_payload as Record<string, any>).summary, {
      distinct_identities: 1,
      detection_count: 2,
      rooms: ["Hallway"],
    });
    await advance(10_000);
    assert.equal(firer.calls.length, 2, "an empty window fires nothing");
  });

  it("holds a window below min_detections or min_identities; min_identities 0 counts strangers", async () => {
    await start();
    const two = await rule({ name: "Two people", cts_window_config: { min_identities: 2 } });
    const anyone = await rule({ name: "Anyone moving", cts_window_config: { min_identities: 0, min_detections: 3 } });
    trigger.start();
    await trigger.idle();
    await frame("hall-cam", "Hallway", 0, [person(null)]);
    await frame("hall-cam", "Hallway", 1_000, [person(null)]);
    await advance(8_000 + SETTLE_MS);
    assert.equal(firer.calls.length, 0, "two detections of a stranger");
    await frame("kitchen-cam", "Kitchen", 9_000, [person(null, "ph-2"), person("rose", "ph-3")]);
    await frame("hall-cam", "Hallway", 9_500, [person(null)]);
    await advance(10_000);
    assert.deepEqual(firer.ruleIds(), [anyone]);
    assert.equal(firer.calls[0].trigger.room_name, null, "two rooms: no single room");
    assert.ok(two);
  });

  it("re-arms a rule whose window changed, drops a deleted one, and keeps windows of one length aligned", async () => {
    await start();
    const id = await rule({ name: "Hallway minute", cts_window_config: { duration_s: 10 } });
    trigger.start();
    await trigger.idle();
    assert.equal(trigger.armed().get(id), Date.parse("2026-11-22T03:00:10Z"));
    assert.equal((await t.request("PUT", `/api/v1/rules/${id}`, { body: { cts_window_config: { duration_s: 60 } } })).status, 200);
    await rulesChanged();
    assert.equal(trigger.armed().get(id), Date.parse("2026-11-22T03:01:00Z"));
    assert.equal((await t.request("DELETE", `/api/v1/rules/${id}`)).status, 204);
    await rulesChanged();
    assert.equal(trigger.armed().size, 0);
  });

  it("reads a closed window again when frames captured in it are committed late, and fires it once", async () => {
    await start();
    const hall = await rule({ name: "Someone in the hallway", cts_window_config: { duration_s: 10, rooms: ["Hallway"] } });
    trigger.start();
    await trigger.idle();
    await advance(8_000 + SETTLE_MS);
    assert.equal(firer.calls.length, 0, "the window closed with no frame in it");

    // A frame captured at 03:00:05 reaches the store 4 s after the window closed.
    await advance(3_000);
    await frame("hall-cam", "Hallway", 3_000, [person("rose")]);
    t.app.ctx.bus.publish("cts.frames", { earliest_ms: T0 + 3_000 });
    await trigger.idle();
    assert.deepEqual(firer.ruleIds(), [hall], "the late frame fired the window it belongs to");
    const w = firer.calls[0].trigger.webhook_payload as Record<string, any>;
    assert.equal(w.window_end, "2026-11-22T03:00:10.000Z");
    assert.deepEqual(w.summary, { distinct_identities: 1, detection_count: 1, rooms: ["Hallway"] });

    await frame("hall-cam", "Hallway", 4_000, [person("rose")]);
    t.app.ctx.bus.publish("cts.frames", { earliest_ms: T0 + 4_000 });
    t.app.ctx.bus.publish("cts.frames", { earliest_ms: T0 + 4_000 });
    await trigger.idle();
    assert.equal(firer.calls.length, 1, "a window fires once, however many late frames follow");
  });

  it("lets a frame go that arrives after the late limit, or belongs to the next window", async () => {
    await start();
    await rule({ name: "Someone in the hallway", cts_window_config: { duration_s: 10, rooms: ["Hallway"] } });
    trigger.start();
    await trigger.idle();
    await advance(8_000 + SETTLE_MS);
    await frame("hall-cam", "Hallway", 9_000, [person("rose")]); // 03:00:11, the open window
    t.app.ctx.bus.publish("cts.frames", { earliest_ms: T0 + 9_000 });
    await trigger.idle();
    assert.equal(firer.calls.length, 0, "a frame of the open window waits for its own close");

    trigger.stop();
    await t.close();
    await start();
    await rule({ name: "Someone in the hallway", cts_window_config: { duration_s: 600, rooms: ["Hallway"] } });
    trigger.start();
    await trigger.idle();
    await advance(598_000 + SETTLE_MS); // the window to 03:10:00 closed, empty
    await advance(LATE_MS);
    await frame("hall-cam", "Hallway", 1_000, [person("rose")]);
    t.app.ctx.bus.publish("cts.frames", { earliest_ms: T0 + 1_000 });
    await trigger.idle();
    assert.equal(firer.calls.length, 0, "past the late limit the window is history");
  });

  it("refuses a window config that does not fit, naming the field", async () => {
    await start();
    const res = await t.post("/api/v1/rules", { name: "bad", trigger_type: "cts_window", cts_window_config: { duration_s: 0 } });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /cts_window_config\.duration_s/);
  });

  it("arms nothing while continuous tracking is off", async () => {
    await start({});
    await rule({ name: "Someone anywhere" });
    trigger.start();
    await trigger.idle();
    await frame("hall-cam", "Hallway", 0, [person("rose")]);
    await advance(60_000);
    assert.equal(trigger.armed().size, 0);
    assert.equal(firer.calls.length, 0);
  });
});
