/**
 * The continuous-tracking streams on the machine's real NATS JetStream broker, each run on its
 * own stream prefix: what each stream does to the store, the source-precedence lock, revisions
 * rewriting history, signals filtered by profile, acknowledgment, malformed and stale messages,
 * and redelivery applying nothing twice. Over real HTTP, on SQLite or PostgreSQL
 * (CAREFLOW_TEST_DATABASE_URL).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { countApplied, listDeadLetters } from "../../../../runtime/household/cts/cts-ledger.store";
import { encodeMessage, msToNs } from "../../../../runtime/household/cts/cts-codec";
import { streamNames } from "../../../../runtime/household/cts/cts-streams";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../support/nats";
import { CtsPublisher, trackingEventBytes } from "../../../fakes/cts-publisher";
import { CAMERAS } from "../../../fakes/cts-script";

const ADULT = { enabled_kinds: ["absence", "nighttime_movement", "stillness_anomaly"], min_severity: "warning" };

describe("continuous tracking: the streams on a real NATS broker", function () {
  this.timeout(60_000);
  let t: TestApp;
  let pub: CtsPublisher;
  let prefix: string;
  const clock = new ManualClock(Date.now());
  const signalsFired: string[] = [];

  before(async function () {
    await requireNats(this);
    prefix = uniquePrefix("streams");
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    t = await startTestApp({
      clock,
      settings: { cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, cameras: CAMERAS, lock_seconds: 60, stale_seconds: 30 } },
    });
    t.app.ctx.bus.subscribe("cts.signal", (s) => signalsFired.push(s.signal_id));
    for (const p of [
      { person_id: "rose", display_name: "Rose", cts_alert_config: ADULT },
      { person_id: "tom", display_name: "Tom" },
    ]) {
      const res = await t.post("/api/v1/persons", p);
      assert.equal(res.status, 201, res.text);
    }
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  after(async () => {
    await t?.close();
    await pub?.close();
    if (prefix) await deleteStreams(NATS_URL, prefix);
  });

  const counters = (key: Parameters<typeof streamNames>[1]) => t.app.cts.health().streams[streamNames(prefix, key).stream];
  /** Waits until the stream's pump has settled `n` messages in all (applied, duplicate, dropped, dead). */
  const settled = (key: Parameters<typeof streamNames>[1], n: number) =>
    eventually(`${n} messages settled on ${key}`, async () => {
      await t.app.cts.idle();
      const c = counters(key);
      return c && c.applied + c.duplicates + c.dropped + c.dead_letters >= n ? c : undefined;
    });
  const location = async (id: string) => (await t.get(`/api/v1/persons/${id}/location`)).body;
  const history = async (id: string) => (await t.get(`/api/v1/persons/${id}/history?hours=24`)).body as Array<{ room_name: string; source: string }>;

  it("says in /health that tracking is connected, with each stream's counters", async () => {
    const res = await t.get("/health", null);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.cts.enabled, true);
    assert.equal(res.body.cts.state, "connected");
  });

  it("places a person from a tracking event, in the camera's room when the event names none", async () => {
    await pub.event({ camera_id: "kitchen-cam", people: [{ ph_id: "ph-a", identity_id: "rose" }], event_id: "e-1", at: clock.now() });
    await settled("tracking.events", 1);
    const loc = await location("rose");
    assert.equal(loc.room_name, "Kitchen");
    assert.equal(loc.source, "cts");
    assert.deepEqual(
      (await history("rose")).map((h) => [h.room_name, h.source]),
      [["Kitchen", "cts"]],
    );
  });

  it("holds the room against a camera sighting for cts.lock_seconds, then lets it move her", async () => {
    const sighting = (atMs: number) => {
      t.app.ctx.bus.publish("person.sighted", {
        person_id: "rose",
        person_name: "Rose",
        visitor: false,
        sensor_id: "bedroom_camera",
        room_name: "Bedroom",
        confidence: 0.9,
        bbox: [],
        at: atMs,
        media_path: null,
        direction_raw: null,
        direction_semantic: null,
      });
      return t.app.tracking.idle();
    };
    clock.advance(10_000);
    await sighting(clock.now());
    assert.equal((await location("rose")).room_name, "Kitchen", "held by the tracking fix");
    clock.advance(61_000);
    await sighting(clock.now());
    assert.equal((await location("rose")).room_name, "Bedroom", "the lock has expired");
  });

  it("applies a redelivered or re-sent event once (idempotent by event_id)", async () => {
    const before = counters("tracking.events").applied;
    const bytes = trackingEventBytes({ camera_id: "hall-cam", people: [{ ph_id: "ph-b", identity_id: "tom" }], event_id: "e-dup", at: clock.now() });
    await pub.raw("tracking.events", bytes);
    await pub.raw("tracking.events", bytes);
    const c = await settled("tracking.events", before + 2);
    assert.equal(c.applied, before + 1);
    assert.equal(c.duplicates, 1);
    assert.equal((await history("tom")).length, 1);
  });

  it("drops a stale event, counts it and changes nothing", async () => {
    const c0 = counters("tracking.events");
    const seen = c0.applied + c0.duplicates + c0.dropped + c0.dead_letters;
    await pub.event({ camera_id: "living-cam", people: [{ ph_id: "ph-old", identity_id: "tom" }], event_id: "e-stale", at: clock.now() - 45_000 });
    const c = await settled("tracking.events", seen + 1);
    assert.equal(c.dropped, c0.dropped + 1);
    assert.match(c.last_drop ?? "", /stale/);
    assert.equal((await location("tom")).room_name, "Hallway");
  });

  // Issue 51, item 10: an event in flight at a kill is redelivered behind newer ones.
  it("places an event redelivered behind a newer one in the history at its capture time; the location stays the newest", async () => {
    for (const p of [
      { person_id: "may", display_name: "May" },
      { person_id: "ned", display_name: "Ned" },
    ]) {
      const res = await t.post("/api/v1/persons", p);
      assert.equal(res.status, 201, res.text);
    }
    const c0 = counters("tracking.events");
    const seen = c0.applied + c0.duplicates + c0.dropped + c0.dead_letters;
    const t0 = clock.now();
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    const seenBy = (camera: string, who: string, id: string, ms: number) =>
      pub.event({ camera_id: camera, people: [{ ph_id: `ph-${who}`, identity_id: who }], event_id: id, at: t0 + ms });
    // May: kitchen, then the living room; the hallway between them arrives last.
    await seenBy("kitchen-cam", "may", "late-may-1", 0);
    await settled("tracking.events", seen + 1);
    clock.advance(10_000);
    await seenBy("living-cam", "may", "late-may-3", 10_000);
    await settled("tracking.events", seen + 2);
    // Ned: kitchen, still the kitchen (no new row), and the hallway between them arrives last.
    await seenBy("kitchen-cam", "ned", "late-ned-1", 0);
    await seenBy("kitchen-cam", "ned", "late-ned-3", 10_000);
    await settled("tracking.events", seen + 4);
    await seenBy("hall-cam", "may", "late-may-2", 5_000);
    await seenBy("hall-cam", "ned", "late-ned-2", 5_000);
    const c = await settled("tracking.events", seen + 6);
    assert.equal(c.applied, c0.applied + 6, "the late events are applied, not dropped");

    const rows = async (id: string) =>
      ((await t.get(`/api/v1/persons/${id}/history?hours=24`)).body as Array<{ room_name: string; timestamp: string }>).map((h) => [h.room_name, h.timestamp]);
    assert.deepEqual(await rows("may"), [
      ["Living Room", at(10_000)],
      ["Hallway", at(5_000)],
      ["Kitchen", at(0)],
    ]);
    assert.equal((await location("may")).room_name, "Living Room", "the current location is the newest event's");
    assert.deepEqual(await rows("ned"), [
      ["Kitchen", at(10_000)],
      ["Hallway", at(5_000)],
      ["Kitchen", at(0)],
    ]);
    const ned = await location("ned");
    assert.deepEqual([ned.room_name, ned.updated_at], ["Kitchen", at(10_000)], "the current location is the newest event's");
  });

  it("keeps a message it cannot decode as a dead letter, and runs on", async () => {
    await pub.raw("tracking.events", Buffer.from([0xff, 0xff, 0xff, 0x01]));
    await eventually("a dead letter", async () =>
      (await listDeadLetters(t.app.ctx.db, 10)).find((d) => d.stream === streamNames(prefix, "tracking.events").stream),
    );
    const [dead] = await listDeadLetters(t.app.ctx.db, 10);
    assert.match(dead.reason, /not a TrackingEvent/);
    assert.equal(dead.payload_base64, Buffer.from([0xff, 0xff, 0xff, 0x01]).toString("base64"));
    await pub.event({ camera_id: "living-cam", people: [{ ph_id: "ph-b", identity_id: "tom" }], event_id: "e-after-dead", at: clock.now() });
    await eventually("Tom in the living room", async () => (await location("tom")).room_name === "Living Room");
  });

  it("rewrites history when a revision says a track was someone else", async () => {
    clock.advance(1000);
    await pub.event({ camera_id: "kitchen-cam", people: [{ ph_id: "ph-k", identity_id: "tom", probability: 0.55 }], event_id: "e-k1", at: clock.now() });
    await eventually("Tom in the kitchen", async () => (await location("tom")).room_name === "Kitchen");
    await pub.revision({ revision_id: "rev-1", ph_id: "ph-k", previous_identity_id: "tom", new_identity_id: "rose" });
    await settled("tracking.revisions", 1);
    assert.deepEqual(
      (await history("tom")).map((h) => h.room_name),
      ["Living Room", "Hallway"],
      "the kitchen row is gone from Tom's timeline",
    );
    const rose = (await history("rose")).map((h) => h.room_name);
    assert.equal(rose[0], "Kitchen", "and is Rose's now");
    assert.equal((await location("rose")).room_name, "Kitchen");
    assert.equal((await location("tom")).room_name, "Living Room", "Tom goes back to where he was last placed");
  });

  it("drops a revision without a revision_id", async () => {
    await pub.raw("tracking.revisions", encodeMessage("IdentityRevision", { ph_id: "ph-k", new_identity_id: "tom" }));
    const c = await settled("tracking.revisions", 2);
    assert.equal(c.dropped, 1);
  });

  it("stores every signal, fires only what Rose's profile enables, and not again for a repeat", async () => {
    signalsFired.length = 0;
    await pub.signal({ signal_id: "s-pacing", identity_id: "rose", kind: "pacing", severity: "warning" });
    await pub.signal({ signal_id: "s-still", identity_id: "rose", kind: "stillness_anomaly", severity: "info" });
    await pub.signal({ signal_id: "s-night", identity_id: "rose", kind: "nighttime_movement", severity: "warning", minutes: 12 });
    await settled("tracking.signals", 3);
    assert.deepEqual(signalsFired, ["s-night"], "pacing is not in the Adult profile, info is below its warning");
    // Re-sent at the same severity (a new NATS message): stored once, not fired again.
    await pub.raw(
      "tracking.signals",
      encodeMessage("DementiaSignal", {
        signal_id: "s-night",
        identity_id: "rose",
        kind: "DEMENTIA_SIGNAL_KIND_NIGHTTIME_MOVEMENT",
        severity: "DEMENTIA_SIGNAL_SEVERITY_WARNING",
        window_end_unix_ns: msToNs(Date.now()),
      }),
    );
    await settled("tracking.signals", 4);
    assert.deepEqual(signalsFired, ["s-night"]);
    // Raised to emergency: fires again.
    await pub.signal({ signal_id: "s-night", identity_id: "rose", kind: "nighttime_movement", severity: "emergency" });
    await settled("tracking.signals", 5);
    assert.deepEqual(signalsFired, ["s-night", "s-night"]);

    const listed = (await t.get("/api/v1/cts/signals")).body as Array<{ signal_id: string; severity: string; details: { minutes: number } }>;
    assert.deepEqual(
      listed.map((s) => s.signal_id).sort(),
      ["s-night", "s-still"].sort().filter((id) => id !== "s-still"),
      "listed through the profile",
    );
    assert.equal(listed[0].severity, "emergency");
    const stored = await t.app.ctx.db("dementia_signals").select("signal_id");
    assert.equal(stored.length, 3, "every signal is stored");
  });

  it("drops signals with an unspecified kind or without an identity", async () => {
    await pub.raw("tracking.signals", encodeMessage("DementiaSignal", { signal_id: "s-bad1", identity_id: "rose", kind: 0, severity: 2 }));
    await pub.raw("tracking.signals", encodeMessage("DementiaSignal", { signal_id: "s-bad2", identity_id: "", kind: 1, severity: 2 }));
    const c = await settled("tracking.signals", 7);
    assert.equal(c.dropped, 2);
  });

  it("acknowledges a signal through REST with feedback, by whom; it leaves the unacknowledged list", async () => {
    const open = (await t.get("/api/v1/cts/signals/unacknowledged")).body as Array<{ id: number; signal_id: string }>;
    const night = open.find((s) => s.signal_id === "s-night");
    assert.ok(night);
    const res = await t.request("POST", `/api/v1/cts/signals/${night.id}/acknowledge`, {
      key: KEYS.caregiver,
      body: { feedback: "She was looking for the cat" },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.acknowledged_by, "test caregiver");
    assert.equal(res.body.feedback, "She was looking for the cat");
    assert.ok(res.body.acknowledged_at);
    const after = (await t.get("/api/v1/cts/signals/unacknowledged")).body as Array<{ signal_id: string }>;
    assert.ok(!after.some((s) => s.signal_id === "s-night"));
    assert.equal((await t.request("POST", "/api/v1/cts/signals/999999/acknowledge", { body: {} })).status, 404);
    assert.equal((await t.request("POST", `/api/v1/cts/signals/${night.id}/acknowledge`, { key: KEYS.mcp, body: {} })).status, 403);
  });

  it("lists the tracking cameras", async () => {
    const res = await t.get("/api/v1/cts/cameras");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body[0], { id: "bedroom-cam", display_name: "Bedroom", rtsp_url: "rtsp://cams.local/bedroom", location: "Bedroom" });
  });

  it("marks each applied message once in the ledger", async () => {
    assert.equal(await countApplied(t.app.ctx.db, streamNames(prefix, "tracking.signals").stream), 4);
  });
});

describe("continuous tracking: disabled (the default)", () => {
  it("answers every /cts route but the presence reload 404 with code cts.disabled, connects to nothing, and /health says disabled", async () => {
    const t = await startTestApp();
    try {
      for (const [method, path] of [
        ["GET", "/api/v1/cts/cameras"],
        ["GET", "/api/v1/cts/signals"],
        ["GET", "/api/v1/cts/signals/unacknowledged"],
        ["POST", "/api/v1/cts/signals/1/acknowledge"],
      ]) {
        const res = await t.request(method, path, { body: method === "POST" ? {} : undefined });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body.code, "cts.disabled");
        assert.equal(typeof res.body.detail, "string");
      }
      // The presence chain works without tracking: its reload answers (here that there is no file to reload from).
      const reload = await t.post("/api/v1/cts/presence-config/reload", {});
      assert.equal(reload.status, 409, reload.text);
      assert.match(reload.body.detail, /presence chain/);
      const health = await t.get("/health", null);
      assert.equal(health.status, 200);
      assert.deepEqual([health.body.cts.enabled, health.body.cts.state], [false, "disabled"]);
    } finally {
      await t.close();
    }
  });
});
