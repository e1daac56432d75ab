import assert from "node:assert/strict";
import { insertRunRows } from "../../support/run-rows";
import { startTestApp, type TestApp } from "../../support/test-app";

describe("activities and event logs", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    const db = t.app.ctx.db;
    await db("person_activities").insert([
      {
        timestamp: "2026-01-01T08:00:00.000Z",
        activity_type: "eating",
        person_id: "rose",
        room_name: "Kitchen",
        confidence: 0.9,
        metadata_json: '{"meal":"breakfast"}',
      },
      { timestamp: "2026-01-01T09:00:00.000Z", activity_type: "medication", person_id: "rose", room_name: "bedroom", confidence: 0.8, metadata_json: "{}" },
      { timestamp: "2026-01-01T10:00:00.000Z", activity_type: "eating", person_id: null, room_name: "kitchen", confidence: 0.8, metadata_json: "{}" },
    ]);
    await insertRunRows(db, [
      { timestamp: "2026-01-01T08:00:00.000Z", rule_name: "Breakfast check", status: "completed", trigger_type: "cron", pipeline_data: { a: 1 } },
      { timestamp: "2026-01-01T09:00:00.000Z", rule_name: "Breakfast check", status: "ignored", trigger_type: "cron" },
      { timestamp: "2026-01-01T10:00:00.000Z", rule_name: "Fall watch", status: "failed", trigger_type: "sensor_event" },
    ]);
  });
  after(() => t.close());

  it("lists activities newest first with person, type and room filters", async () => {
    const all = await t.get("/api/v1/activities");
    assert.deepEqual(
      all.body.map((a: { activity_type: string }) => a.activity_type),
      ["eating", "medication", "eating"],
    );
    assert.deepEqual(all.body[2].metadata_json, { meal: "breakfast" });
    assert.equal((await t.get("/api/v1/activities?person_id=rose")).body.length, 2);
    assert.equal((await t.get("/api/v1/activities?activity_type=eating")).body.length, 2);
    assert.equal((await t.get("/api/v1/activities?room_name=kitchen")).body.length, 2);
    assert.equal((await t.get("/api/v1/activities?since=2026-01-01T08:30:00Z")).body.length, 2);
    assert.equal((await t.get("/api/v1/activities?limit=1")).body.length, 1);
    assert.equal((await t.get("/api/v1/activities?limit=0")).status, 422);
    assert.equal((await t.get("/api/v1/activities?since=yesterday")).status, 422);
  });

  it("lists event logs with rule_name, status and limit filters", async () => {
    const all = await t.get("/api/v1/events");
    assert.equal(all.body.length, 3);
    assert.deepEqual(all.body[2].pipeline_data, { a: 1 });
    assert.equal((await t.get("/api/v1/events?rule_name=Breakfast%20check")).body.length, 2);
    assert.deepEqual(
      (await t.get("/api/v1/events?status=completed")).body.map((e: { status: string }) => e.status),
      ["completed"],
    );
    assert.equal((await t.get("/api/v1/events?limit=2")).body.length, 2);
    const bad = await t.get("/api/v1/events?status=done");
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /status/);
  });
});
