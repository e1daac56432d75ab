/**
 * The location state fused from camera sightings and presence sensors, read through the
 * API: sightings, location, history (with direction_semantic), quality, staleness, and the
 * `sensor.event` of kind `location` that a change publishes.
 */
import assert from "node:assert/strict";
import type { PersonSighting, SensorEvent } from "../../../../runtime/platform/core/event-bus";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { appHandlerContext } from "../../../support/app-handler-context";
import { handler as personPresence } from "../../../../nodes/filters/person_presence/person_presence.handler";
import { spec as personPresenceSpec } from "../../../../nodes/filters/person_presence/person_presence.node";
import { handler as roomTransition } from "../../../../nodes/filters/room_transition/room_transition.handler";
import { spec as roomTransitionSpec } from "../../../../nodes/filters/room_transition/room_transition.node";
import { configOf } from "../../../nodes/filters/_support/tracking-db";
import { trigger } from "../../../nodes/handler-context";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const T0 = Date.parse("2026-05-04T08:00:00Z");
const MIN = 60_000;

describe("location state: sightings and presence sensors fused", () => {
  let t: TestApp;
  let clock: ManualClock;
  let events: SensorEvent[];
  const rooms: Record<string, number> = {};

  const sighting = (o: Partial<PersonSighting> = {}): PersonSighting => ({
    person_id: "rose",
    person_name: "Rose",
    visitor: false,
    sensor_id: "kitchen_cam",
    room_name: null,
    confidence: 0.9,
    bbox: [10, 20, 110, 140],
    at: clock.now(),
    media_path: "media/ab/cd/abcd.jpg",
    direction_raw: null,
    direction_semantic: null,
    ...o,
  });
  const see = async (o: Partial<PersonSighting> = {}) => {
    t.app.ctx.bus.publish("person.sighted", sighting(o));
    await t.app.tracking.idle();
  };
  const occupied = async (sensor_id: string, occupied = true) => {
    t.app.ctx.bus.publish("sensor.event", { kind: "presence", sensor_id, room_name: null, occupied, at: clock.now() });
    await t.app.tracking.idle();
  };
  const location = async (id = "rose") => (await t.get(`/api/v1/persons/${id}/location`)).body;
  const locationEvents = () => events.filter((e) => e.kind === "location").map((e) => (e as { input: Record<string, unknown> }).input);

  beforeEach(async () => {
    clock = new ManualClock(T0);
    t = await startTestApp({ clock });
    for (const name of ["kitchen", "bedroom", "hallway"]) rooms[name] = (await t.post("/api/v1/rooms", { name })).body.id;
    const sensor = (sensor_id: string, sensor_type: string, room: string) =>
      t.request(sensor_id === "kitchen_cam" ? "PUT" : "POST", sensor_id === "kitchen_cam" ? "/api/v1/sensors/kitchen_cam" : "/api/v1/sensors", {
        body: sensor_id === "kitchen_cam" ? { room_id: rooms[room] } : { sensor_id, name: sensor_id, sensor_type, room_id: rooms[room] },
      });
    for (const [id, type, room] of [
      ["kitchen_cam", "camera", "kitchen"],
      ["hall_cam", "camera", "hallway"],
      ["bedroom_presence", "presence", "bedroom"],
      ["kitchen_presence", "presence", "kitchen"],
    ]) {
      const res = await sensor(id, type, room);
      assert.ok(res.status < 300, res.text);
    }
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await t.post("/api/v1/persons", { person_id: "tom", display_name: "Tom" });
    events = [];
    t.app.ctx.bus.subscribe("sensor.event", (e) => events.push(e));
  });
  afterEach(() => t.close());

  it("a sighting sets the room from the camera's room; a presence activation after it infers the sensor's room", async () => {
    await see({ direction_raw: "left-to-right", direction_semantic: "entering" });
    let l = await location();
    assert.deepEqual(
      { room_name: l.room_name, room_id: l.room_id, source: l.source, confidence: l.confidence, quality: l.quality, stale: l.stale, since: l.since },
      {
        room_name: "kitchen",
        room_id: String(rooms.kitchen),
        source: "camera",
        confidence: 0.9,
        quality: 0.9,
        stale: false,
        since: new Date(T0).toISOString(),
      },
    );

    clock.advance(2 * MIN);
    await see({ confidence: 0.7 }); // the same room: the stay's quality, no new history
    l = await location();
    assert.equal(l.quality, 0.8);
    assert.equal(l.since, new Date(T0).toISOString(), "still the same stay");
    assert.equal(l.updated_at, new Date(T0 + 2 * MIN).toISOString());

    clock.advance(3 * MIN);
    await occupied("bedroom_presence");
    l = await location();
    assert.deepEqual([l.room_name, l.source, l.confidence], ["bedroom", "hub_sensor", 0.6]);

    clock.advance(MIN);
    await occupied("bedroom_presence", false); // leaving changes nothing until someone sees her
    assert.equal((await location()).room_name, "bedroom");
    clock.advance(MIN);
    await see({ sensor_id: "hall_cam", direction_raw: "right-to-left", direction_semantic: "entering" });
    assert.equal((await location()).room_name, "hallway");

    const history = (await t.get("/api/v1/persons/rose/history?hours=1")).body;
    assert.deepEqual(
      history.map((h: Record<string, unknown>) => [h.room_name, h.source, h.direction_semantic, h.quality, h.timestamp]),
      [
        ["hallway", "camera", "entering", 0.9, new Date(T0 + 7 * MIN).toISOString()],
        ["bedroom", "hub_sensor", null, 0.6, new Date(T0 + 5 * MIN).toISOString()],
        ["kitchen", "camera", "entering", 0.8, new Date(T0).toISOString()],
      ],
    );
    assert.deepEqual(locationEvents(), [
      { person_id: "rose", person_name: "Rose", from_room: null, to_room: "kitchen", source: "camera", direction_semantic: "entering" },
      { person_id: "rose", person_name: "Rose", from_room: "kitchen", to_room: "bedroom", source: "hub_sensor", direction_semantic: null },
      { person_id: "rose", person_name: "Rose", from_room: "bedroom", to_room: "hallway", source: "camera", direction_semantic: "entering" },
    ]);
    const moved = events.filter((e) => e.kind === "location").map((e) => [e.sensor_id, e.room_name]);
    assert.deepEqual(moved, [
      ["kitchen_cam", "kitchen"],
      ["bedroom_presence", "bedroom"],
      ["hall_cam", "hallway"],
    ]);

    // The room transitions the room_transition filter reads.
    const transitions = await t.app.ctx.db("room_transitions").orderBy("id").select("semantic", "from_room_name", "to_room_name", "sensor_id", "direction_raw");
    assert.deepEqual(transitions, [
      { semantic: "entering", from_room_name: null, to_room_name: "kitchen", sensor_id: "kitchen_cam", direction_raw: "left-to-right" },
      { semantic: null, from_room_name: "kitchen", to_room_name: "bedroom", sensor_id: "bedroom_presence", direction_raw: null },
      { semantic: "entering", from_room_name: "bedroom", to_room_name: "hallway", sensor_id: "hall_cam", direction_raw: "right-to-left" },
    ]);

    // Only the last hour's changes.
    clock.advance(60 * MIN);
    assert.deepEqual(
      (await t.get("/api/v1/persons/rose/history?hours=1")).body.map((h: { room_name: string }) => h.room_name),
      ["hallway"],
    );
  });

  it("the person_presence and room_transition filters read what the fusion wrote", async () => {
    const ctx = appHandlerContext(t.app.ctx);
    const input = { trigger: trigger(), rule_id: 1, negate: false };
    const presence = (config: Record<string, unknown>) => personPresence(ctx, input, configOf(personPresenceSpec, { person_id: "rose", ...config }));
    const transition = (config: Record<string, unknown>) => roomTransition(ctx, input, configOf(roomTransitionSpec, { person_id: "rose", ...config }));
    assert.equal((await presence({ status: "unknown" })).pass, true);
    await see({ sensor_id: "hall_cam" });
    clock.advance(MIN);
    await see({ direction_raw: "left-to-right", direction_semantic: "entering" });
    assert.equal((await presence({ status: "home", room_name: "Kitchen" })).pass, true);
    assert.equal((await presence({ status: "home", room_name: "hallway" })).pass, false);
    const entered = await transition({ semantic: "entering", from_room_name: "Hallway", to_room_name: "kitchen" });
    assert.equal(entered.pass, true, entered.reason);
    assert.equal((await transition({ to_room_name: "bedroom" })).pass, false);
    clock.advance(6 * MIN);
    assert.equal((await transition({ to_room_name: "kitchen" })).pass, false, "older than within_minutes (5)");
  });

  it("stores every sighting, newest first; visitors are stored but not placed", async () => {
    await see({ direction_raw: "towards-camera", direction_semantic: "entering_depth" });
    clock.advance(MIN);
    await see({ sensor_id: "hall_cam", confidence: 0.75 });
    await see({ person_id: "visitor-3", person_name: null, visitor: true });
    const res = await t.get("/api/v1/persons/rose/sightings?limit=20");
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body[0], {
      person_id: "rose",
      person_name: "Rose",
      visitor: false,
      sensor_id: "hall_cam",
      room_name: "hallway",
      confidence: 0.75,
      bbox: [10, 20, 110, 140],
      media_path: "media/ab/cd/abcd.jpg",
      direction_raw: null,
      direction_semantic: null,
      timestamp: new Date(T0 + MIN).toISOString(),
    });
    assert.equal(res.body[1].direction_semantic, "entering_depth");
    assert.equal((await t.get("/api/v1/persons/rose/sightings?limit=1")).body.length, 1);
    const visitors = await t.app.ctx.db("sightings").where({ person_id: "visitor-3" });
    assert.equal(visitors.length, 1, "the visitor's sighting is kept");
    assert.equal(await t.app.ctx.db("person_locations").where({ person_id: "visitor-3" }).first(), undefined, "a visitor is not placed");
  });

  it("a presence activation infers nobody when nobody or several persons are placed, and never a stale one", async () => {
    await occupied("bedroom_presence");
    assert.equal((await location()).room_name, null, "nobody placed: nothing inferred");
    await see();
    await see({ person_id: "tom", person_name: "Tom", sensor_id: "hall_cam" });
    clock.advance(MIN);
    await occupied("bedroom_presence");
    assert.equal((await location("rose")).room_name, "kitchen", "two persons placed: it could be either");
    assert.equal((await location("tom")).room_name, "hallway");
    clock.advance(31 * MIN); // both stale
    await see({ person_id: "tom", person_name: "Tom", sensor_id: "hall_cam" });
    await occupied("bedroom_presence");
    assert.equal((await location("tom")).room_name, "bedroom", "Rose's location is stale: only Tom is placed");
    assert.equal((await location("rose")).stale, true);
  });

  it("a sighting in the same room after the location went stale is a new stay; an older sighting changes nothing", async () => {
    await see();
    clock.advance(31 * MIN);
    assert.equal((await location()).stale, true, "person_tracking.stale_timeout_minutes (30)");
    const list = (await t.get("/api/v1/persons/locations")).body;
    assert.deepEqual(
      list.map((l: { person_id: string; room_name: string | null; stale: boolean }) => [l.person_id, l.room_name, l.stale]),
      [
        ["rose", "kitchen", true],
        ["tom", null, true],
      ],
    );
    await see();
    assert.equal((await location()).stale, false);
    assert.equal(locationEvents().length, 2, "entering the kitchen again is a change");
    await see({ sensor_id: "hall_cam", at: T0 + MIN }); // a late frame from before
    assert.equal((await location()).room_name, "kitchen");
    assert.equal((await t.get("/api/v1/persons/rose/history")).body.length, 2);
  });

  it("person_tracking.enabled false: sightings kept, nobody placed", async () => {
    t.app.ctx.settings.person_tracking.enabled = false;
    await see();
    assert.equal((await location()).room_name, null);
    assert.equal((await t.get("/api/v1/persons/rose/sightings")).body.length, 1);
  });

  it("answers 404 for an unknown person and 422 naming the field for a bad query; caregivers may read", async () => {
    for (const path of ["location", "history", "sightings"]) {
      const res = await t.get(`/api/v1/persons/nobody/${path}`);
      assert.equal(res.status, 404, path);
      assert.match(res.body.detail, /nobody/);
    }
    for (const [path, field] of [
      ["history?hours=abc", "hours"],
      ["history?hours=0", "hours"],
      ["history?hours=100000", "hours"],
      ["sightings?limit=0", "limit"],
      ["sightings?limit=2.5", "limit"],
      ["sightings?limit=201", "limit"],
    ]) {
      const res = await t.get(`/api/v1/persons/rose/${path}`);
      assert.equal(res.status, 422, path);
      assert.match(res.body.detail, new RegExp(`^query\\.${field}|${field}`), path);
    }
    assert.equal((await t.get("/api/v1/persons/rose/location", KEYS.caregiver)).status, 200);
    assert.equal((await t.get("/api/v1/persons/locations", KEYS.mcp)).status, 200);
  });
});
