import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "../../support/test-app";

describe("sensors", () => {
  let t: TestApp;
  let kitchen: number;
  let bedroom: number;
  before(async () => {
    t = await startTestApp({ settings: { auth: { api_keys: [{ key: "test-admin-key-0001", name: "a", permissions: ["admin"] }] } } });
    kitchen = (await t.post("/api/v1/rooms", { name: "kitchen" })).body.id;
    bedroom = (await t.post("/api/v1/rooms", { name: "bedroom" })).body.id;
    await t.post("/api/v1/sensors", { sensor_id: "kitchen_pir", sensor_type: "presence", room_id: kitchen, source: "hub" });
    await t.post("/api/v1/sensors", { sensor_id: "bed_pir", sensor_type: "presence", room_id: bedroom, source: "hub" });
    await t.post("/api/v1/sensors", { sensor_id: "kitchen_cam", sensor_type: "camera", room_id: kitchen });
  });
  after(() => t.close());

  it("registers a sensor with defaults and its room name", async () => {
    const res = await t.get("/api/v1/sensors/kitchen_cam");
    assert.equal(res.status, 200);
    assert.equal(res.body.sensor_type, "camera");
    assert.equal(res.body.room_name, "kitchen");
    assert.equal(res.body.source, "manual");
    assert.equal(res.body.enabled, true);
    assert.deepEqual(res.body.config_json, {});
    assert.equal((await t.get(`/api/v1/sensors/${res.body.id}`)).body.sensor_id, "kitchen_cam", "numeric id works too");
  });

  it("filters by room_id, sensor_type and source", async () => {
    const ids = async (q: string) => (await t.get(`/api/v1/sensors?${q}`)).body.map((s: { sensor_id: string }) => s.sensor_id).sort();
    assert.deepEqual(await ids(`room_id=${kitchen}`), ["kitchen_cam", "kitchen_pir"]);
    assert.deepEqual(await ids("sensor_type=presence"), ["bed_pir", "kitchen_pir"]);
    assert.deepEqual(await ids("source=hub"), ["bed_pir", "kitchen_pir"]);
    assert.deepEqual(await ids(`source=hub&room_id=${bedroom}`), ["bed_pir"]);
  });

  it("rejects a bad filter with 422", async () => {
    const res = await t.get("/api/v1/sensors?sensor_type=thermostat");
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /sensor_type/);
    assert.equal((await t.get("/api/v1/sensors?room_id=abc")).status, 422);
  });

  it("accepts a valid movement_map and keeps other config keys", async () => {
    const res = await t.request("PUT", "/api/v1/sensors/kitchen_cam", {
      body: { config_json: { movement_map: { "left-to-right": "entering", "away-from-camera": "exiting" }, fps: 5 } },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.config_json.movement_map, { "left-to-right": "entering", "away-from-camera": "exiting" });
    assert.equal(res.body.config_json.fps, 5);
  });

  it("rejects an unknown raw direction or semantic value in movement_map", async () => {
    const badValue = await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { config_json: { movement_map: { "left-to-right": "flying" } } } });
    assert.equal(badValue.status, 422);
    assert.match(badValue.body.detail, /config_json\.movement_map/);
    const badKey = await t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { config_json: { movement_map: { sideways: "entering" } } } });
    assert.equal(badKey.status, 422);
    assert.match(badKey.body.detail, /config_json\.movement_map/);
    assert.equal((await t.get("/api/v1/sensors/kitchen_cam")).body.config_json.movement_map["left-to-right"], "entering", "unchanged");
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["an unknown sensor_type", { sensor_id: "s1", sensor_type: "thermostat" }, /^sensor_type: /],
    ["a missing sensor_id", { sensor_type: "light" }, /^sensor_id: /],
    ["a room that does not exist", { sensor_id: "s1", sensor_type: "light", room_id: 999 }, /room_id: room 999 does not exist/],
    ["room_id of the wrong type", { sensor_id: "s1", sensor_type: "light", room_id: "kitchen" }, /^room_id: /],
    ["an unknown field", { sensor_id: "s1", sensor_type: "light", colour: 1 }, /colour: unknown field/],
    ["config_json that is not an object", { sensor_id: "s1", sensor_type: "light", config_json: [] }, /^config_json: /],
  ];
  for (const [what, body, detail] of bad) {
    it(`answers 422 for ${what}`, async () => {
      const res = await t.post("/api/v1/sensors", body);
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.detail, detail);
      assert.equal((await t.get("/api/v1/sensors/s1")).status, 404, "nothing was written");
    });
  }

  it("refuses a duplicate sensor_id with 409", async () => {
    const res = await t.post("/api/v1/sensors", { sensor_id: "bed_pir", sensor_type: "presence" });
    assert.equal(res.status, 409);
  });

  it("deletes a sensor and answers 404 afterwards", async () => {
    await t.post("/api/v1/sensors", { sensor_id: "tmp_light", sensor_type: "light" });
    assert.equal((await t.request("DELETE", "/api/v1/sensors/tmp_light")).status, 204);
    assert.equal((await t.get("/api/v1/sensors/tmp_light")).status, 404);
    assert.equal((await t.request("DELETE", "/api/v1/sensors/tmp_light")).status, 404);
  });
});
