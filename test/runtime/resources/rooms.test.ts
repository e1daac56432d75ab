import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "../../support/test-app";

describe("rooms", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("creates, lists, updates and deletes a room", async () => {
    const created = await t.post("/api/v1/rooms", { name: "kitchen", floor: "ground", ha_area_id: "kitchen" });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, "kitchen");
    assert.equal(typeof created.body.id, "number");
    const list = await t.get("/api/v1/rooms");
    assert.deepEqual(
      list.body.map((r: { name: string }) => r.name),
      ["kitchen"],
    );
    const updated = await t.request("PUT", `/api/v1/rooms/${created.body.id}`, { body: { name: "big kitchen" } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.name, "big kitchen");
    assert.equal(updated.body.floor, "ground");
    const del = await t.request("DELETE", `/api/v1/rooms/${created.body.id}`);
    assert.equal(del.status, 204);
    assert.deepEqual((await t.get("/api/v1/rooms")).body, []);
  });

  it("refuses a duplicate name with 409, case-insensitively", async () => {
    await t.post("/api/v1/rooms", { name: "Kitchen" });
    const dup = await t.post("/api/v1/rooms", { name: "kitchen" });
    assert.equal(dup.status, 409);
    assert.match(dup.body.detail, /already exists/);
  });

  it("refuses renaming onto another room's name", async () => {
    await t.post("/api/v1/rooms", { name: "kitchen" });
    const b = await t.post("/api/v1/rooms", { name: "bedroom" });
    const res = await t.request("PUT", `/api/v1/rooms/${b.body.id}`, { body: { name: "KITCHEN" } });
    assert.equal(res.status, 409);
    assert.equal((await t.get(`/api/v1/rooms/${b.body.id}`)).body.name, "bedroom");
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["a missing name", {}, /^name: /],
    ["a name of the wrong type", { name: 42 }, /^name: /],
    ["an empty name", { name: "   " }, /^name: must not be empty/],
    ["an unknown field", { name: "x", colour: "red" }, /colour: unknown field/],
    ["an array body", [{ name: "x" }], /^body: /],
  ];
  for (const [what, body, detail] of bad) {
    it(`answers 422 naming the field for ${what}`, async () => {
      const res = await t.post("/api/v1/rooms", body);
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.detail, detail);
      assert.deepEqual((await t.get("/api/v1/rooms")).body, [], "nothing was written");
    });
  }

  it("answers 404 for unknown and malformed ids", async () => {
    for (const id of ["999", "abc", "0", "-1"]) {
      const put = await t.request("PUT", `/api/v1/rooms/${id}`, { body: { name: "x" } });
      assert.equal(put.status, 404, `PUT ${id}`);
      assert.match(put.body.detail, /not found/);
      assert.equal((await t.request("DELETE", `/api/v1/rooms/${id}`)).status, 404, `DELETE ${id}`);
    }
  });

  it("does not delete a room that still has sensors", async () => {
    const room = await t.post("/api/v1/rooms", { name: "bathroom" });
    await t.post("/api/v1/sensors", { sensor_id: "bath_pir", sensor_type: "presence", room_id: room.body.id });
    const res = await t.request("DELETE", `/api/v1/rooms/${room.body.id}`);
    assert.equal(res.status, 409);
    assert.match(res.body.detail, /bath_pir/);
    assert.equal((await t.get(`/api/v1/rooms/${room.body.id}`)).status, 200);
  });
});
