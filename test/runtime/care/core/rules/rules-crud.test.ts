import assert from "node:assert/strict";
import { DEVICES_TAB_ID } from "../../../../../runtime/household/devices/devices-tab";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

describe("rules: the rule resource", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startTestApp();
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" });
  });
  afterEach(() => t.close());

  it("creates a rule with defaults and lists it", async () => {
    const res = await t.post("/api/v1/rules", { name: "Morning check", description: "Has Rose had breakfast?", trigger_type: "manual" });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.name, "Morning check");
    assert.equal(res.body.enabled, true);
    assert.equal(res.body.cool_off_minutes, 0);
    assert.equal(res.body.max_daily_triggers, null);
    assert.deepEqual(res.body.steps, []);
    assert.deepEqual(res.body.contexts, []);
    assert.deepEqual(res.body.dependencies, []);
    const list = await t.get("/api/v1/rules");
    assert.deepEqual(
      list.body.map((r: { name: string }) => r.name),
      ["Morning check"],
    );
  });

  it("takes the spec's spellings of a dementia_signal context over REST (kind, min_severity) and stores the own ones", async () => {
    const { body: rule } = await t.post("/api/v1/rules", { name: "Pacing", trigger_type: "dementia_signal" });
    const res = await t.post(`/api/v1/rules/${rule.id}/contexts`, { context_type: "dementia_signal", config: { kind: "pacing", min_severity: "info" } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual([res.body.config.kinds, res.body.config.severity_min, res.body.config.kind], [["pacing"], "info", undefined]);
    const bad = await t.post(`/api/v1/rules/${rule.id}/contexts`, { context_type: "dementia_signal", config: { kind: "dancing" } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /kinds/);
  });

  it("updates name, description, enabled and trigger settings; a disabled rule is a disabled tab", async () => {
    const { body: rule } = await t.post("/api/v1/rules", { name: "Night", trigger_type: "manual" });
    const res = await t.request("PUT", `/api/v1/rules/${rule.id}`, {
      body: { name: "Night walk", enabled: false, trigger_type: "cron", schedule_cron: "0 22 * * *", primary_sensor_id: "hall_pir", max_daily_triggers: 2 },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, "Night walk");
    assert.equal(res.body.enabled, false);
    assert.equal(res.body.schedule_cron, "0 22 * * *");
    assert.equal(res.body.max_daily_triggers, 2);
    const tab = (await t.app.ctx.db("flow_nodes").where({ type: "tab" }).whereNot({ id: DEVICES_TAB_ID }).first()) as { json: string };
    assert.equal(JSON.parse(tab.json).disabled, true);
  });

  const bad: Array<[string, unknown, number, RegExp]> = [
    ["a missing name", { trigger_type: "manual" }, 422, /^name: /],
    ["an unknown trigger type", { name: "x", trigger_type: "sometimes" }, 422, /^trigger_type: /],
    ["a cron rule without a sensor", { name: "x", trigger_type: "cron", schedule_cron: "0 8 * * *" }, 422, /primary_sensor_id: is required for cron rules/],
    ["a cron rule without a schedule", { name: "x", trigger_type: "cron", primary_sensor_id: "hall_pir" }, 422, /schedule_cron: is required/],
    [
      "a schedule that does not parse",
      { name: "x", trigger_type: "cron", primary_sensor_id: "hall_pir", schedule_cron: "61 * * * *" },
      422,
      /schedule_cron: not a valid cron expression/,
    ],
    [
      "an occupancy rule without a sensor",
      { name: "x", trigger_type: "occupancy_duration", occupancy_config: { min_minutes: 20 } },
      422,
      /primary_sensor_id: is required for occupancy_duration/,
    ],
    [
      "an unknown sensor, with a suggestion",
      { name: "x", trigger_type: "sensor_event", primary_sensor_id: "hall_pri" },
      422,
      /sensor 'hall_pri' does not exist; did you mean 'hall_pir'\?/,
    ],
    ["a negative cool-off", { name: "x", trigger_type: "manual", cool_off_minutes: -5 }, 422, /^cool_off_minutes: /],
    ["an unknown field", { name: "x", trigger_type: "manual", colour: "red" }, 422, /colour: unknown field/],
  ];
  for (const [what, body, status, detail] of bad) {
    it(`refuses ${what}`, async () => {
      const res = await t.post("/api/v1/rules", body);
      assert.equal(res.status, status, res.text);
      assert.match(res.body.detail, detail);
      assert.deepEqual((await t.get("/api/v1/rules")).body, [], "nothing was written");
    });
  }

  it("refuses a duplicate name with 409, also on rename", async () => {
    await t.post("/api/v1/rules", { name: "Fall watch", trigger_type: "manual" });
    assert.equal((await t.post("/api/v1/rules", { name: "fall WATCH", trigger_type: "manual" })).status, 409);
    const { body: other } = await t.post("/api/v1/rules", { name: "Other", trigger_type: "manual" });
    assert.equal((await t.request("PUT", `/api/v1/rules/${other.id}`, { body: { name: "Fall watch" } })).status, 409);
  });

  it("deletes a rule with its steps, contexts and dependencies", async () => {
    const { body: a } = await t.post("/api/v1/rules", { name: "A", trigger_type: "manual" });
    const { body: b } = await t.post("/api/v1/rules", { name: "B", trigger_type: "manual" });
    await t.post(`/api/v1/rules/${a.id}/steps`, { step_type: "wait" });
    await t.post(`/api/v1/rules/${b.id}/dependencies`, { depends_on_rule_id: a.id });
    assert.equal((await t.request("DELETE", `/api/v1/rules/${a.id}`)).status, 204);
    assert.equal((await t.get(`/api/v1/rules/${a.id}`)).status, 404);
    assert.deepEqual((await t.get(`/api/v1/rules/${b.id}/dependencies`)).body, [], "dependencies on it are gone");
    const rows: Array<{ id: string; z: string | null; type: string }> = await t.app.ctx.db("flow_nodes").select("id", "z", "type");
    const left = rows.filter((n) => n.id !== DEVICES_TAB_ID && n.z !== DEVICES_TAB_ID);
    assert.deepEqual(left.map((n) => n.type).sort(), ["care-trigger", "tab"], "only B's tab and trigger remain");
  });

  it("answers 404 for unknown rules on every route", async () => {
    for (const [method, path] of [
      ["GET", "/api/v1/rules/99"],
      ["PUT", "/api/v1/rules/99"],
      ["DELETE", "/api/v1/rules/99"],
      ["GET", "/api/v1/rules/99/steps"],
      ["POST", "/api/v1/rules/99/steps"],
      ["GET", "/api/v1/rules/99/edges"],
      ["PUT", "/api/v1/rules/99/edges"],
      ["GET", "/api/v1/rules/99/contexts"],
      ["GET", "/api/v1/rules/99/dependencies"],
      ["GET", "/api/v1/rules/abc"],
    ]) {
      const body = method === "POST" ? { step_type: "wait" } : method === "PUT" ? (path.endsWith("edges") ? { edges: [] } : { name: "x" }) : undefined;
      const res = await t.request(method, path, { body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
  });

  it("shows the webhook secret to admins only", async () => {
    const { body: rule } = await t.post("/api/v1/rules", { name: "Hook", trigger_type: "webhook" });
    const { body: made } = await t.post(`/api/v1/webhooks/${rule.id}/generate-secret`, {});
    assert.equal((await t.get(`/api/v1/rules/${rule.id}`)).body.webhook_config.secret, made.secret);
    assert.equal((await t.get(`/api/v1/rules/${rule.id}`, KEYS.caregiver)).body.webhook_config.secret, "***");
  });

  it("lets a caregiver read rules but not change them", async () => {
    const { body: rule } = await t.post("/api/v1/rules", { name: "R", trigger_type: "manual" });
    assert.equal((await t.get(`/api/v1/rules/${rule.id}`, KEYS.caregiver)).status, 200);
    assert.equal((await t.request("PUT", `/api/v1/rules/${rule.id}`, { key: KEYS.caregiver, body: { name: "Z" } })).status, 403);
  });
});
