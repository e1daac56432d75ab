import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "../../support/test-app";

describe("persons", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  it("registers a member, deriving person_id from the name, with enrollment status", async () => {
    const res = await t.post("/api/v1/persons", { display_name: "Grandma Rose" });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.person_id, "grandma_rose");
    assert.equal(res.body.enrollment_status, "not_enrolled");
    assert.equal(res.body.cts_alert_config, null);
    const list = await t.get("/api/v1/persons");
    assert.deepEqual(
      list.body.map((p: { person_id: string }) => p.person_id),
      ["grandma_rose"],
    );
  });

  it("updates display name and alert config with PATCH", async () => {
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    const res = await t.request("PATCH", "/api/v1/persons/rose", {
      body: { display_name: "Rose M.", cts_alert_config: { enabled_kinds: ["absence", "pacing"], min_severity: "warning" } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.display_name, "Rose M.");
    assert.deepEqual(res.body.cts_alert_config, { enabled_kinds: ["absence", "pacing"], min_severity: "warning" });
    const cleared = await t.request("PATCH", "/api/v1/persons/rose", { body: { cts_alert_config: null } });
    assert.equal(cleared.body.cts_alert_config, null);
  });

  const badConfigs: Array<[string, unknown, RegExp]> = [
    ["an unknown kind", { enabled_kinds: ["dancing"], min_severity: "info" }, /cts_alert_config\.enabled_kinds\.0/],
    ["an unknown severity", { enabled_kinds: [], min_severity: "critical" }, /cts_alert_config\.min_severity/],
    ["a missing min_severity", { enabled_kinds: ["absence"] }, /cts_alert_config\.min_severity/],
    ["an extra key", { enabled_kinds: [], min_severity: "info", loud: true }, /cts_alert_config\.loud: unknown field/],
  ];
  for (const [what, config, detail] of badConfigs) {
    it(`rejects cts_alert_config with ${what}`, async () => {
      await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
      const res = await t.request("PATCH", "/api/v1/persons/rose", { body: { display_name: "Changed", cts_alert_config: config } });
      assert.equal(res.status, 422, res.text);
      assert.match(res.body.detail, detail);
      assert.equal((await t.get("/api/v1/persons/rose")).body.display_name, "Rose", "nothing half-written");
    });
  }

  it("rejects a bad person_id and a duplicate", async () => {
    const bad = await t.post("/api/v1/persons", { person_id: "Rose Smith", display_name: "Rose" });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^person_id: /);
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    assert.equal((await t.post("/api/v1/persons", { person_id: "rose", display_name: "Other" })).status, 409);
  });

  it("deletes a member together with their activities", async () => {
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await t.post("/api/v1/persons", { person_id: "sam", display_name: "Sam" });
    const db = t.app.ctx.db;
    const ts = new Date().toISOString();
    await db("person_activities").insert([
      { timestamp: ts, activity_type: "eating", person_id: "rose", metadata_json: "{}" },
      { timestamp: ts, activity_type: "eating", person_id: "sam", metadata_json: "{}" },
    ]);
    assert.equal((await t.request("DELETE", "/api/v1/persons/rose")).status, 204);
    assert.equal((await t.get("/api/v1/persons/rose")).status, 404);
    const left = await t.get("/api/v1/activities");
    assert.deepEqual(
      left.body.map((a: { person_id: string }) => a.person_id),
      ["sam"],
    );
  });

  it("answers 404 for an unknown member on every route", async () => {
    assert.equal((await t.get("/api/v1/persons/nobody")).status, 404);
    assert.equal((await t.request("PATCH", "/api/v1/persons/nobody", { body: { notes: "x" } })).status, 404);
    assert.equal((await t.request("DELETE", "/api/v1/persons/nobody")).status, 404);
  });
});
