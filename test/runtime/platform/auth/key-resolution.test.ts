import assert from "node:assert/strict";
import { KeyStore } from "../../../../runtime/platform/auth/key-store";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("key resolution order and device keys", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("accepts the key in the api_key query parameter", async () => {
    const res = await t.request("GET", `/api/v1/rooms?api_key=${KEYS.caregiver}`, { key: null });
    assert.equal(res.status, 200);
  });

  it("accepts a device key in the JSON body's device_key field", async () => {
    const res = await t.request("POST", "/api/v1/device/camera", { key: null, body: { device_key: KEYS.camera } });
    assert.notEqual(res.status, 401);
    assert.notEqual(res.status, 403);
  });

  it("takes the header before the query: a caregiver header wins over an admin query key", async () => {
    const res = await t.request("POST", `/api/v1/rooms?api_key=${KEYS.admin}`, { key: KEYS.caregiver, body: { name: "attic" } });
    assert.equal(res.status, 403);
  });

  it("takes the query before the body: the query's caregiver key decides", async () => {
    const res = await t.request("POST", `/api/v1/rooms?api_key=${KEYS.caregiver}`, { key: null, body: { name: "attic", device_key: KEYS.camera } });
    assert.equal(res.status, 403);
  });

  it("does not rescue a wrong header key with a right query key", async () => {
    const res = await t.request("GET", `/api/v1/rooms?api_key=${KEYS.admin}`, { key: "wrong-key-123456" });
    assert.equal(res.status, 401);
  });

  it("takes a key from the body only on the routes devices post to, and reads no other body first", async () => {
    const res = await t.request("POST", "/api/v1/rooms", { key: null, body: { name: "pantry", device_key: KEYS.admin } });
    assert.equal(res.status, 401, res.text);
    assert.equal(
      (await t.get("/api/v1/rooms")).body.some((r: { name: string }) => r.name === "pantry"),
      false,
    );
  });

  it("does not pass the body's device_key on to the handler as data", async () => {
    // The terminal answers prompts with its key in the body; the handler never sees the key.
    const res = await t.request("POST", "/api/v1/interactive-responses", {
      key: null,
      body: { device_key: KEYS.terminal, execution_id: 999999, step_id: 1, channel: "terminal", action: "yes" },
    });
    assert.ok(![401, 403].includes(res.status), res.text);
    assert.doesNotMatch(res.text, /device_key/);
  });

  it("does not accept Authorization: Bearer on ordinary API routes", async () => {
    const res = await t.request("GET", "/api/v1/rooms", { key: null, headers: { authorization: `Bearer ${KEYS.admin}` } });
    assert.equal(res.status, 401);
  });

  it("derives the device's sensor_id from its key", async () => {
    const store = new KeyStore([], [{ key: "ABCD1234", sensor_id: "porch_cam", device_type: "camera_device", permissions: ["device:camera"] }]);
    const p = await store.resolve("ABCD1234");
    assert.ok(p && p.kind === "device");
    assert.equal(p.sensor_id, "porch_cam");
    assert.equal(p.device_type, "camera_device");
    assert.equal(await store.resolve("ABCD1235"), null);
  });

  it("gives a device key with no permissions its device type's defaults", async () => {
    const store = new KeyStore([], [{ key: "DISP9999", sensor_id: "d1", device_type: "display", permissions: [] }]);
    const p = await store.resolve("DISP9999");
    assert.ok(p);
    assert.deepEqual(p.patterns, ["GET /api/v1/image/active"]);
  });

  it("upserts a sensor for each device key at startup with the device's type", async () => {
    const res = await t.get("/api/v1/sensors");
    const byId = new Map(res.body.map((s: { sensor_id: string }) => [s.sensor_id, s]));
    assert.equal((byId.get("kitchen_cam") as { sensor_type: string }).sensor_type, "camera");
    assert.equal((byId.get("hall_display") as { sensor_type: string }).sensor_type, "eink");
    assert.equal((byId.get("bedside_terminal") as { sensor_type: string }).sensor_type, "eink");
    assert.equal((byId.get("kitchen_cam") as { source: string }).source, "device_key");
  });
});
