/**
 * What the Household page's Rooms and Connections tabs need of `/api/v1` (issue 43 §1), over
 * real HTTP on SQLite or PostgreSQL (CAREFLOW_TEST_DATABASE_URL): a room or sensor a rule uses
 * is not deleted (409 naming the rule); the hub's address and token tested against the fake hub
 * (entities by domain, areas; a wrong token or address named as such), saved and used at once
 * with no restart (the import works, then a second hub replaces the first), never answered back;
 * the tracking broker tested on the machine's NATS; caregivers refused; bad input named.
 */
import assert from "node:assert/strict";
import { startFakeHub, type FakeHub } from "../../../fakes/hub-server";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";
import { NATS_URL, portOpen } from "../../../support/nats";
import { migratedDatabase, type TestDatabase } from "../../../support/test-db";

const HOUSE = {
  token: "hub-token-A",
  areas: [
    { area_id: "attic", name: "Attic" },
    { area_id: "porch", name: "Porch" },
  ],
  states: [
    { entity_id: "binary_sensor.attic_motion", state: "off", attributes: { device_class: "motion", friendly_name: "Attic motion" } },
    { entity_id: "sensor.porch_lux", state: "80", attributes: { device_class: "illuminance", friendly_name: "Porch light level" } },
    { entity_id: "light.porch", state: "off", attributes: {} },
    { entity_id: "light.attic", state: "off", attributes: {} },
  ],
  entityRegistry: [
    { entity_id: "binary_sensor.attic_motion", area_id: "attic", device_id: null },
    { entity_id: "sensor.porch_lux", area_id: "porch", device_id: null },
  ],
};

describe("household page API: rooms in use, the hub and the tracking connections", function () {
  this.timeout(120_000);

  describe("a room or sensor a rule uses", () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({ nodeRed: true, demo: true });
    });
    after(async () => t?.close());

    const roomId = async (name: string): Promise<number> =>
      ((await t.get("/api/v1/rooms")).body as Array<{ id: number; name: string }>).find((r) => r.name === name)!.id;

    it("is refused with 409 naming the rule, for the room and for its sensor", async () => {
      const room = await t.request("DELETE", `/api/v1/rooms/${await roomId("bathroom")}`);
      assert.equal(room.status, 409, room.text);
      assert.match(
        room.body.detail,
        /^Room 'bathroom' is used by rule \d+ 'Bathroom check' \(its sensor 'binary_sensor\.bathroom_presence'\); change the rule first/,
      );
      const sensor = await t.request("DELETE", "/api/v1/sensors/binary_sensor.bathroom_presence");
      assert.equal(sensor.status, 409, sensor.text);
      assert.match(sensor.body.detail, /^Sensor 'binary_sensor\.bathroom_presence' is used by rule \d+ 'Bathroom check'; change the rule first/);
      assert.equal((await t.get("/api/v1/sensors/binary_sensor.bathroom_presence")).status, 200, "still there");
    });

    it("a room no rule uses is deleted once it is empty; an unknown one is 404", async () => {
      const made = await t.post("/api/v1/rooms", { name: "Spare room" });
      assert.equal(made.status, 201, made.text);
      assert.equal((await t.post("/api/v1/sensors", { sensor_id: "spare_motion", sensor_type: "presence", room_id: made.body.id })).status, 201);
      const full = await t.request("DELETE", `/api/v1/rooms/${made.body.id}`);
      assert.equal(full.status, 409);
      assert.match(full.body.detail, /still has 1 sensor\(s\) \(spare_motion\)/);
      assert.equal((await t.request("DELETE", "/api/v1/sensors/spare_motion")).status, 204);
      assert.equal((await t.request("DELETE", `/api/v1/rooms/${made.body.id}`)).status, 204);
      assert.equal((await t.request("DELETE", "/api/v1/rooms/999999")).status, 404);
      assert.equal((await t.request("DELETE", "/api/v1/sensors/no_such_sensor")).status, 404);
    });
  });

  describe("the hub, set while the service runs", () => {
    let hubA: FakeHub;
    let hubB: FakeHub;
    let t: TestApp;
    let db: TestDatabase;
    before(async () => {
      hubA = await startFakeHub(HOUSE);
      hubB = await startFakeHub({
        token: "hub-token-B",
        areas: [{ area_id: "cellar", name: "Cellar" }],
        states: [{ entity_id: "switch.cellar", state: "off", attributes: {} }],
      });
      db = await migratedDatabase();
      t = await startTestApp({ database: db });
    });
    after(async () => {
      await t?.close();
      await db?.drop();
      await hubA?.close();
      await hubB?.close();
    });
    const put = (body: unknown, key?: string) => t.request("PUT", "/api/v1/admin/connections/hub", { body, key });

    it("starts with no hub, and a sync says so", async () => {
      const res = await t.get("/api/v1/admin/connections/hub");
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { url: null, token_set: false, source: "none", connected: false, entities: 0, saved_at: null, saved_by: null });
      assert.equal((await t.post("/api/v1/ha/sync/rooms", {})).status, 503);
    });

    it("tests an address and token: what it found, or which field is wrong", async () => {
      const found = await t.post("/api/v1/admin/connections/hub/test", { url: hubA.url, token: HOUSE.token });
      assert.equal(found.status, 200, found.text);
      assert.equal(found.body.ok, true);
      assert.equal(found.body.entities, 4);
      assert.deepEqual(found.body.by_domain, { light: 2, binary_sensor: 1, sensor: 1 });
      assert.deepEqual(found.body.areas, ["Attic", "Porch"]);
      const badToken = await t.post("/api/v1/admin/connections/hub/test", { url: hubA.url, token: "wrong" });
      assert.equal(badToken.body.ok, false);
      assert.equal(badToken.body.field, "token");
      assert.match(badToken.body.message, /refused this token/);
      const nobody = await t.post("/api/v1/admin/connections/hub/test", { url: "http://127.0.0.1:9", token: "x" });
      assert.equal(nobody.body.ok, false);
      assert.equal(nobody.body.field, "url");
      assert.equal((await t.get("/api/v1/admin/connections/hub")).body.source, "none", "a test keeps nothing");
    });

    it("refuses bad input naming the field, a token missing, and a connection that does not work", async () => {
      for (const [body, field] of [
        [{ url: "homeassistant.local:8123", token: "x" }, "url"],
        [{ url: "ftp://hub", token: "x" }, "url"],
        [{ url: "", token: "x" }, "url"],
        [{ url: hubA.url, token: "" }, "token"],
        [{ url: hubA.url }, "token"],
        [{ url: hubA.url, token: "x", extra: 1 }, "extra"],
      ] as const) {
        const res = await put(body);
        assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
        assert.match(res.body.detail, new RegExp(`^${field}`), res.body.detail);
      }
      const wrong = await put({ url: hubA.url, token: "wrong" });
      assert.equal(wrong.status, 422);
      assert.match(wrong.body.detail, /^token: the hub refused this token/);
      assert.equal((await t.get("/api/v1/admin/connections/hub")).body.source, "none");
    });

    it("is admin only", async () => {
      assert.equal((await t.get("/api/v1/admin/connections/hub", KEYS.caregiver)).status, 403);
      assert.equal((await t.post("/api/v1/admin/connections/hub/test", { url: hubA.url, token: "x" }, KEYS.caregiver)).status, 403);
      assert.equal((await put({ url: hubA.url, token: HOUSE.token }, KEYS.caregiver)).status, 403);
    });

    it("saves a working one and uses it at once: connected, the import works, the token never comes back", async () => {
      const res = await put({ url: hubA.url, token: HOUSE.token });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.source, "saved");
      assert.equal(res.body.url, hubA.url);
      assert.equal(res.body.saved_by, "test admin");
      assert.ok(!res.text.includes(HOUSE.token), "the token is not in the answer");
      await eventually("connected to hub A", async () => {
        const v = (await t.get("/api/v1/admin/connections/hub")).body;
        return v.connected && v.entities >= 4 ? v : undefined;
      });
      const view = await t.get("/api/v1/admin/connections/hub");
      // Hub A's four, and careflow's own sign of life it writes there (hub-heartbeat.ts).
      assert.ok(view.body.entities >= 4, view.text);
      assert.ok(!view.text.includes(HOUSE.token));
      const rooms = await t.post("/api/v1/ha/sync/rooms", {});
      assert.equal(rooms.status, 200, rooms.text);
      assert.equal(rooms.body.created, 2);
      const sensors = await t.post("/api/v1/ha/sync/sensors", {});
      assert.equal(sensors.body.created, 2);
      const names = ((await t.get("/api/v1/sensors?source=hub")).body as Array<{ sensor_id: string; room_name: string }>).map(
        (s) => `${s.sensor_id}@${s.room_name}`,
      );
      assert.deepEqual(names.sort(), ["binary_sensor.attic_motion@Attic", "sensor.porch_lux@Porch"]);
      // The audit log says who set it (never the token).
      const audit = (await t.get("/api/v1/admin/audit")).body as Array<{ target_type: string; actor: string }>;
      assert.ok(audit.some((e) => e.target_type === "hub connection" && e.actor === "test admin"));
    });

    it("tests again with the token in use when none is typed, and a second hub replaces the first", async () => {
      const again = await t.post("/api/v1/admin/connections/hub/test", { url: hubA.url });
      assert.equal(again.body.ok, true, again.text);
      const res = await put({ url: hubB.url, token: "hub-token-B" });
      assert.equal(res.status, 200, res.text);
      await eventually("connected to hub B", async () => {
        const v = (await t.get("/api/v1/admin/connections/hub")).body;
        return v.connected && v.url === hubB.url && v.entities <= 2 ? v : undefined;
      });
      const rooms = await t.post("/api/v1/ha/sync/rooms", {});
      assert.equal(rooms.body.created, 1, rooms.text);
    });

    it("the next start on the same store uses the saved hub, before the settings file's", async () => {
      await t.close();
      // The settings file names hub A: the hub set on the page (B) stands before it.
      t = await startTestApp({ database: db, settings: { hub: { url: hubA.url, token: HOUSE.token } } });
      const v = await eventually("connected to hub B again", async () => {
        const view = (await t.get("/api/v1/admin/connections/hub")).body;
        return view.connected ? view : undefined;
      });
      assert.equal(v.url, hubB.url);
      assert.equal(v.source, "saved");
      assert.equal(hubA.connections(), 0);
    });
  });

  describe("the tracking service's broker", () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp();
    });
    after(async () => t?.close());

    it("says tracking is off and which streams it would use", async () => {
      const res = await t.get("/api/v1/admin/connections/tracking");
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.enabled, false);
      assert.equal(res.body.state, "disabled");
      assert.equal(res.body.streams.length, 6);
      assert.equal((await t.get("/api/v1/admin/connections/tracking", KEYS.caregiver)).status, 403);
    });

    it("tests a broker: the streams found, or that nothing answered; bad input named", async function () {
      const nobody = await t.post("/api/v1/admin/connections/tracking/test", { nats_url: "nats://127.0.0.1:9" });
      assert.equal(nobody.status, 200, nobody.text);
      assert.equal(nobody.body.ok, false);
      assert.equal(nobody.body.field, "nats_url");
      for (const body of [{ nats_url: "127.0.0.1:4222" }, { nats_url: "" }, {}, { nats_url: NATS_URL, more: true }]) {
        const bad = await t.post("/api/v1/admin/connections/tracking/test", body);
        assert.equal(bad.status, 422, bad.text);
        assert.match(bad.body.detail, /^(nats_url|more)/);
      }
      if (!(await portOpen(NATS_URL))) this.skip();
      const found = await t.post("/api/v1/admin/connections/tracking/test", { nats_url: NATS_URL });
      assert.equal(found.body.ok, true, found.text);
      assert.equal(found.body.streams_found.length + found.body.streams_missing.length, 6);
      assert.deepEqual(found.body.settings, { cts: { enabled: true, nats_url: NATS_URL } });
    });
  });
});
