/**
 * Room names are one name whatever their case or Unicode spelling, on SQLite and on
 * PostgreSQL alike: uniqueness, lookups, and the room_name filters of activities and
 * alerts all compare the same key (`runtime/core/name-key.ts`), never SQL `lower()`.
 */
import assert from "node:assert/strict";
import { createAlert } from "../../../runtime/household/alerts/alerts.service";
import { findRoomByName } from "../../../runtime/household/rooms/rooms.service";
import { startTestApp, type TestApp } from "../../support/test-app";

const q = encodeURIComponent;

describe("room names: one key, beyond ASCII", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("refuses 'KÜCHE' after 'Küche' with 409 and a detail, and every other spelling of it", async () => {
    const first = await t.post("/api/v1/rooms", { name: "Küche" });
    assert.equal(first.status, 201, first.text);
    for (const name of ["KÜCHE", "küche", " KüChE ", "Ku\u0308che", "ＫÜＣＨＥ"]) {
      const dup = await t.post("/api/v1/rooms", { name });
      assert.equal(dup.status, 409, `${JSON.stringify(name)}: ${dup.text}`);
      assert.deepEqual(Object.keys(dup.body), ["detail"]);
      assert.match(dup.body.detail, /A room named 'Küche' already exists/);
    }
    assert.deepEqual(
      (await t.get("/api/v1/rooms")).body.map((r: { name: string }) => r.name),
      ["Küche"],
    );
  });

  it("refuses 'Küche' after 'KÜCHE' (SQLite's lower() folded only the ASCII letters)", async () => {
    assert.equal((await t.post("/api/v1/rooms", { name: "KÜCHE" })).status, 201);
    const dup = await t.post("/api/v1/rooms", { name: "Küche" });
    assert.equal(dup.status, 409, dup.text);
    assert.deepEqual(dup.body, { detail: dup.body.detail });
    assert.match(dup.body.detail, /A room named 'KÜCHE' already exists/);
    assert.equal((await t.get("/api/v1/rooms")).body.length, 1);
  });

  // On PostgreSQL several of these pass the check together; the unique key refuses all but one.
  it("lets only one of several rooms created at the same moment have the name, the others get 409", async () => {
    const spellings = ["KÜCHE", "Küche", "küche", " KüChE", "KÜche", "kÜCHE", "KüCHE", "kÜche"];
    const results = await Promise.all(spellings.map((name) => t.post("/api/v1/rooms", { name })));
    assert.deepEqual(results.map((r) => r.status).sort(), [201, ...spellings.slice(1).map(() => 409)], results.map((r) => r.text).join("\n"));
    for (const r of results.filter((x) => x.status === 409)) assert.match(r.body.detail, /already exists/);
    assert.equal((await t.get("/api/v1/rooms")).body.length, 1);
  });

  it("refuses with 422 a name whose key would not fit the key column", async () => {
    const res = await t.post("/api/v1/rooms", { name: "\uFDFA".repeat(30) });
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.detail, /^name: too long once normalized/);
  });

  it("refuses renaming a room onto another's name in another case, and allows a room to change its own case", async () => {
    const kitchen = (await t.post("/api/v1/rooms", { name: "KÜCHE" })).body;
    const bath = (await t.post("/api/v1/rooms", { name: "Bad" })).body;
    const clash = await t.request("PUT", `/api/v1/rooms/${bath.id}`, { body: { name: "küche" } });
    assert.equal(clash.status, 409, clash.text);
    assert.match(clash.body.detail, /already exists/);
    assert.equal((await t.get(`/api/v1/rooms/${bath.id}`)).body.name, "Bad");
    const own = await t.request("PUT", `/api/v1/rooms/${kitchen.id}`, { body: { name: "Küche" } });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.name, "Küche");
  });

  it("shows rooms as before: the key column is not part of a room", async () => {
    const room = (await t.post("/api/v1/rooms", { name: "Wohnzimmer" })).body;
    assert.deepEqual(Object.keys(room).sort(), ["created_at", "floor", "ha_area_id", "id", "name", "updated_at"]);
    assert.deepEqual(Object.keys((await t.get("/api/v1/rooms")).body[0]).sort(), Object.keys(room).sort());
  });

  it("finds 'KÜCHE' by 'küche'", async () => {
    const kitchen = (await t.post("/api/v1/rooms", { name: "KÜCHE" })).body;
    assert.equal((await findRoomByName(t.app.ctx, "küche"))?.id, kitchen.id);
    assert.equal((await findRoomByName(t.app.ctx, "Ku\u0308che"))?.id, kitchen.id);
    assert.equal(await findRoomByName(t.app.ctx, "Kuche"), undefined);
    // Full case mapping: 'ß' is 'ss' in the key.
    const street = (await t.post("/api/v1/rooms", { name: "Straße" })).body;
    assert.equal((await findRoomByName(t.app.ctx, "STRASSE"))?.id, street.id);
  });

  it("accepts a rule filter naming the room 'küche' when the room is 'KÜCHE'", async () => {
    await t.post("/api/v1/rooms", { name: "KÜCHE" });
    const id = (await t.post("/api/v1/rules", { name: "Kitchen only", trigger_type: "manual" })).body.id;
    const ok = await t.post(`/api/v1/rules/${id}/contexts`, { context_type: "room", config: { room_names: ["küche"] } });
    assert.equal(ok.status, 201, ok.text);
  });

  it("filters activities by room_name across case beyond ASCII, otherwise as before", async () => {
    await t.app.ctx.db("person_activities").insert([
      { timestamp: "2026-01-01T08:00:00.000Z", activity_type: "eating", person_id: "rose", room_name: "KÜCHE", confidence: 0.9, metadata_json: "{}" },
      { timestamp: "2026-01-01T09:00:00.000Z", activity_type: "eating", person_id: "rose", room_name: "Küche", confidence: 0.9, metadata_json: "{}" },
      { timestamp: "2026-01-01T10:00:00.000Z", activity_type: "sleeping", person_id: "rose", room_name: "Schlafzimmer", confidence: 0.9, metadata_json: "{}" },
      { timestamp: "2026-01-01T11:00:00.000Z", activity_type: "eating", person_id: null, room_name: null, confidence: 0.9, metadata_json: "{}" },
    ]);
    const times = async (room: string, extra = "") =>
      (await t.get(`/api/v1/activities?room_name=${q(room)}${extra}`)).body.map((a: { timestamp: string }) => a.timestamp.slice(11, 13));
    assert.deepEqual(await times("küche"), ["09", "08"]);
    assert.deepEqual(await times("KÜCHE"), ["09", "08"]);
    assert.deepEqual(await times("schlafzimmer"), ["10"]);
    assert.deepEqual(await times("Kuche"), []);
    assert.deepEqual(await times("küche", "&limit=1&offset=1"), ["08"]);
    assert.deepEqual(await times("küche", "&activity_type=sleeping"), []);
  });

  it("filters alerts by room_name across case beyond ASCII, otherwise as before", async () => {
    const ctx = t.app.ctx;
    const upper = (await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "Fall", room_name: "KÜCHE" })).id;
    const mixed = (await createAlert(ctx, { alert_type: "smoke", level: "warning", description: "Smoke", room_name: "Küche" })).id;
    const other = (await createAlert(ctx, { alert_type: "fall", level: "emergency", description: "Fall", room_name: "Flur" })).id;
    const ids = async (query: string) => (await t.get(`/api/v1/alerts?${query}`)).body.map((a: { id: number }) => a.id).sort((a: number, b: number) => a - b);
    assert.deepEqual(await ids(`room_name=${q("küche")}`), [upper, mixed]);
    assert.deepEqual(await ids(`room_name=${q("küche")}&alert_type=fall`), [upper]);
    assert.deepEqual(await ids(`room_name=FLUR`), [other]);
    assert.deepEqual(await ids(`room_name=nowhere`), []);
  });
});
