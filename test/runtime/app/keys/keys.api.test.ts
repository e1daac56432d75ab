/**
 * Keys made while the service runs (issue 43 §2), over real HTTP: a new key works at its first
 * request, a rotated or revoked one stops at the next; the list never shows a secret and has the
 * settings' keys read-only; only admins manage keys; the audit log says who did what.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { eventually } from "../../../support/eventually";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("admin keys: made, rotated and revoked while the service runs", function () {
  this.timeout(60_000);
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-29T09:00:00Z"));

  before(async () => {
    t = await startTestApp({ nodeRed: true, clock });
    const kitchen = (await t.post("/api/v1/rooms", { name: "kitchen" })).body.id;
    const made = await t.post("/api/v1/sensors", { sensor_id: "porch_cam", name: "Porch camera", sensor_type: "camera", room_id: kitchen });
    assert.equal(made.status, 201, made.text);
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" });
  });
  after(() => t.close());

  const create = (body: unknown, key: string | null = KEYS.admin) => t.request("POST", "/api/v1/admin/keys", { key, body });
  const frame = async (key: string) =>
    t.request("POST", "/api/v1/device/camera", { key: null, body: { device_key: key, ...cameraPayload(await testJpeg(320, 240, 3)) } });

  it("makes an api key of a role that works at once, with that role's rights", async () => {
    const res = await create({ name: "Anna's phone", kind: "api", role: "caregiver" });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.key, /^[A-Za-z0-9_-]{32,}$/);
    assert.equal(res.body.name, "Anna's phone");
    assert.equal(res.body.kind, "api");
    assert.equal(res.body.role, "caregiver");
    assert.equal(res.body.created_at, new Date(clock.now()).toISOString());
    assert.equal(typeof res.body.id, "number");
    assert.equal((await t.get("/api/v1/rooms", res.body.key)).status, 200);
    // A caregiver, not an admin: no writes, and the keys are not for her.
    assert.equal((await t.post("/api/v1/rooms", { name: "attic" }, res.body.key)).status, 403);
    assert.equal((await t.get("/api/v1/admin/keys", res.body.key)).status, 403);
  });

  it("makes a device key in the spec's form that a camera posts a frame with at once, refused after DELETE", async () => {
    const res = await create({ name: "porch camera", kind: "device", device_type: "camera_device", sensor_id: "porch_cam" });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.key, /^[A-Z0-9]{8}$/);
    assert.equal(res.body.sensor_id, "porch_cam");
    assert.equal(res.body.device_type, "camera_device");
    const ok = await frame(res.body.key);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.status, "accepted");
    // In the query too, and the frame is the porch's.
    const q = await t.request("POST", `/api/v1/device/camera?api_key=${res.body.key}`, { key: null, body: cameraPayload(await testJpeg(320, 240, 4)) });
    assert.equal(q.status, 200, q.text);

    const del = await t.request("DELETE", `/api/v1/admin/keys/${res.body.id}`);
    assert.equal(del.status, 204, del.text);
    const refused = await frame(res.body.key);
    assert.equal(refused.status, 401, refused.text);
    // Revoked is revoked: again is no change, rotating it is refused.
    assert.equal((await t.request("DELETE", `/api/v1/admin/keys/${res.body.id}`)).status, 204);
    assert.equal((await t.post(`/api/v1/admin/keys/${res.body.id}/rotate`, {})).status, 409);
  });

  it("rotates a key: the old one is refused at once, the new one accepted", async () => {
    const made = await create({ name: "porch camera", kind: "device", device_type: "camera_device", sensor_id: "porch_cam" });
    assert.equal(made.status, 201, made.text); // the revoked key's name is free again
    const rotated = await t.post(`/api/v1/admin/keys/${made.body.id}/rotate`, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.key, /^[A-Z0-9]{8}$/);
    assert.notEqual(rotated.body.key, made.body.key);
    assert.equal(rotated.body.id, made.body.id);
    assert.equal((await frame(made.body.key)).status, 401);
    assert.equal((await frame(rotated.body.key)).status, 200);
    // Its sensor is not deleted from under it.
    const del = await t.request("DELETE", "/api/v1/sensors/porch_cam");
    assert.equal(del.status, 409, del.text);
    assert.match(del.body.detail, /device key 'porch camera'/);

    const api = await create({ name: "hub script", kind: "api", role: "admin" });
    const next = await t.post(`/api/v1/admin/keys/${api.body.id}/rotate`, {}, api.body.key);
    assert.equal(next.status, 200, next.text);
    assert.equal((await t.get("/api/v1/rooms", api.body.key)).status, 401);
    assert.equal((await t.get("/api/v1/rooms", next.body.key)).status, 200);
  });

  it("lists every key, the settings' read-only, never a secret or digest", async () => {
    clock.advance(5 * 60_000);
    const made = await create({ name: "tablet", kind: "api", role: "webapp" });
    const list = await t.get("/api/v1/admin/keys");
    assert.equal(list.status, 200, list.text);
    const text = JSON.stringify(list.body);
    for (const secret of [...Object.values(KEYS), made.body.key]) assert.ok(!text.includes(secret), `the list shows a key: ${secret}`);
    assert.doesNotMatch(text, /digest|[0-9a-f]{64}/);
    const admin = list.body.find((k: { name: string }) => k.name === "test admin");
    assert.deepEqual(
      { source: admin.source, id: admin.id, role: admin.role, read_only: admin.read_only, kind: admin.kind },
      { source: "settings", id: null, role: "admin", read_only: true, kind: "api" },
    );
    const camera = list.body.find((k: { sensor_id: string | null; source: string }) => k.sensor_id === "kitchen_cam" && k.source === "settings");
    assert.equal(camera.device_type, "camera_device");
    const tablet = list.body.find((k: { name: string }) => k.name === "tablet");
    assert.deepEqual(
      { id: tablet.id, kind: tablet.kind, role: tablet.role, revoked: tablet.revoked, source: tablet.source, last_used_at: tablet.last_used_at },
      { id: made.body.id, kind: "api", role: "webapp", revoked: false, source: "managed", last_used_at: null },
    );
    const revoked = list.body.filter((k: { name: string; revoked: boolean }) => k.name === "porch camera" && k.revoked);
    assert.equal(revoked.length, 1);
  });

  it("notes a key's last use, at most once a minute", async () => {
    const made = await create({ name: "night nurse", kind: "api", role: "caregiver" });
    const usedAt = () => t.get("/api/v1/admin/keys").then((r) => r.body.find((k: { id: number }) => k.id === made.body.id).last_used_at);
    await t.get("/api/v1/rooms", made.body.key);
    const first = new Date(clock.now()).toISOString();
    await eventually("the first use noted", async () => (await usedAt()) === first);
    clock.advance(30_000);
    await t.get("/api/v1/rooms", made.body.key);
    assert.equal(await usedAt(), first);
    clock.advance(31_000);
    await t.get("/api/v1/rooms", made.body.key);
    const later = new Date(clock.now()).toISOString();
    await eventually("the use a minute later noted", async () => (await usedAt()) === later);
  });

  it("refuses a bad body with 422 naming the field, a taken name with 409, an unknown id with 404", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ name: "x", kind: "api" }, /role: required/],
      [{ name: "x", kind: "api", role: "owner" }, /role:/],
      [{ name: "x", kind: "api", role: "admin", sensor_id: "porch_cam" }, /sensor_id: not for an api key/],
      [{ name: "x", kind: "device", device_type: "camera_device" }, /sensor_id: required/],
      [{ name: "x", kind: "device", device_type: "toaster", sensor_id: "porch_cam" }, /device_type:/],
      [{ name: "x", kind: "device", device_type: "camera_device", sensor_id: "nowhere" }, /sensor_id: no sensor 'nowhere'/],
      [{ name: "x", kind: "device", device_type: "camera_device", sensor_id: "hall_pir" }, /sensor_id: .*presence sensor/],
      [{ name: "", kind: "api", role: "admin" }, /name:/],
      [{ name: "x", kind: "robot" }, /kind:/],
      [{ name: "x", kind: "api", role: "admin", key: "mine" }, /key: unknown field/],
    ];
    for (const [body, detail] of cases) {
      const res = await create(body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.body.detail, detail);
    }
    assert.equal((await create({ name: "TABLET", kind: "api", role: "caregiver" })).status, 409);
    assert.equal((await create({ name: "test admin", kind: "api", role: "caregiver" })).status, 409);
    assert.equal((await t.post("/api/v1/admin/keys/999999/rotate", {})).status, 404);
    assert.equal((await t.request("DELETE", "/api/v1/admin/keys/999999")).status, 404);
  });

  it("lets only admins manage keys", async () => {
    for (const key of [KEYS.caregiver, KEYS.mcp, KEYS.webapp, KEYS.camera]) {
      assert.equal((await create({ name: "sneaky", kind: "api", role: "admin" }, key)).status, 403);
      assert.equal((await t.get("/api/v1/admin/keys", key)).status, 403);
      assert.equal((await t.get("/api/v1/admin/audit", key)).status, 403);
      assert.equal((await t.post("/api/v1/admin/keys/1/rotate", {}, key)).status, 403);
      assert.equal((await t.request("DELETE", "/api/v1/admin/keys/1", { key })).status, 403);
    }
    assert.equal((await t.get("/api/v1/admin/keys", null)).status, 401);
    // Another spelling of the path is the same route to Express: refused the same.
    for (const path of ["/api/v1/Admin/Keys", "/api/v1/admin/AUDIT", "/api/v1/admin/keys/"])
      assert.equal((await t.get(path, KEYS.caregiver)).status, 403, path);
  });

  it("keeps an audit log of who made, rotated and revoked keys, newest first", async () => {
    const res = await t.get("/api/v1/admin/audit?limit=50");
    assert.equal(res.status, 200, res.text);
    const entries = res.body as Array<{ id: number; actor: string; action: string; target_type: string; target_name: string }>;
    const ids = entries.map((e) => e.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );
    const said = entries.filter((e) => e.target_type === "key").map((e) => `${e.actor} ${e.action} ${e.target_name}`);
    for (const line of ["test admin create Anna's phone", "test admin revoke porch camera", "test admin rotate porch camera", "hub script rotate hub script"])
      assert.ok(said.includes(line), `${line} not in ${said.join(", ")}`);
    assert.equal((await t.get("/api/v1/admin/audit?limit=1")).body.length, 1);
    for (const bad of ["0", "-1", "abc", "100000"]) assert.equal((await t.get(`/api/v1/admin/audit?limit=${bad}`)).status, 422, bad);
  });
});
