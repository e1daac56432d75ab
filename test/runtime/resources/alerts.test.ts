import assert from "node:assert/strict";
import { createAlert, storeAlertNotification } from "../../../runtime/household/alerts/alerts.service";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

describe("alerts", () => {
  let t: TestApp;
  let fall: number;
  let smoke: number;
  beforeEach(async () => {
    t = await startTestApp();
    fall = (await createAlert(t.app.ctx, { alert_type: "fall", level: "emergency", description: "Possible fall", room_name: "Bathroom" })).id;
    smoke = (await createAlert(t.app.ctx, { alert_type: "smoke", level: "warning", description: "Smoke", room_name: "kitchen" })).id;
  });
  afterEach(() => t.close());

  it("lists with filters resolved, room_name and alert_type", async () => {
    assert.equal((await t.get("/api/v1/alerts")).body.length, 2);
    assert.deepEqual(
      (await t.get("/api/v1/alerts?alert_type=fall")).body.map((a: { id: number }) => a.id),
      [fall],
    );
    assert.deepEqual(
      (await t.get("/api/v1/alerts?room_name=bathroom")).body.map((a: { id: number }) => a.id),
      [fall],
    );
    assert.equal((await t.get("/api/v1/alerts?resolved=true")).body.length, 0);
    assert.equal((await t.get("/api/v1/alerts?resolved=maybe")).status, 422);
  });

  it("shows an alert's own fields, never the send's plan (a webhook address) or careflow's keys", async () => {
    const sent = await createAlert(t.app.ctx, { alert_type: "door", level: "warning", description: "Door open", idempotency_key: "7:2:0" });
    await storeAlertNotification(t.app.ctx, sent.id, JSON.stringify({ options: { webhook_url: "https://hooks.example/secret-token" } }));
    for (const shown of [(await t.get("/api/v1/alerts?alert_type=door")).body[0], (await t.get(`/api/v1/alerts/${sent.id}`)).body]) {
      assert.equal(shown.id, sent.id);
      assert.equal(shown.description, "Door open");
      for (const inner of ["notification_json", "idempotency_key", "escalation_sent"]) assert.ok(!(inner in shown), `${inner} is not shown`);
      assert.doesNotMatch(JSON.stringify(shown), /secret-token/);
    }
  });

  it("dismiss resolves the alert and records who did it", async () => {
    const res = await t.request("POST", `/api/v1/alerts/${fall}/action`, { key: KEYS.caregiver, body: { action: "dismiss", note: "She is fine" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.resolved, true);
    assert.equal(res.body.resolved_by, "test caregiver");
    assert.equal(res.body.actions[0].action, "dismiss");
    assert.equal(res.body.actions[0].note, "She is fine");
    assert.deepEqual(
      (await t.get("/api/v1/alerts?resolved=false")).body.map((a: { id: number }) => a.id),
      [smoke],
    );
  });

  it("assist marks help needed, records it and leaves the alert open", async () => {
    const events: unknown[] = [];
    t.app.ctx.bus.subscribe("alert.acknowledged", (e) => events.push(e));
    const res = await t.request("POST", `/api/v1/alerts/${smoke}/action`, { key: KEYS.caregiver, body: { action: "assist" } });
    assert.equal(res.status, 200);
    assert.equal(res.body.assistance_needed, true);
    assert.equal(res.body.resolved, false);
    assert.deepEqual(events, [{ alert_id: smoke, action: "assist", actor: "test caregiver" }]);
  });

  it("refuses an action on a resolved alert with 409", async () => {
    await t.post(`/api/v1/alerts/${fall}/action`, { action: "dismiss" });
    const again = await t.post(`/api/v1/alerts/${fall}/action`, { action: "dismiss" });
    assert.equal(again.status, 409);
    assert.match(again.body.detail, /already resolved by test admin/);
  });

  it("rejects an unknown action with 422 and unknown alerts with 404", async () => {
    const bad = await t.post(`/api/v1/alerts/${fall}/action`, { action: "snooze" });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /^action: /);
    assert.equal((await t.post("/api/v1/alerts/9999/action", { action: "dismiss" })).status, 404);
    assert.equal((await t.get("/api/v1/alerts/9999")).status, 404);
  });

  it("raises one alert per idempotency key: the same step raising again gets the alert it raised", async () => {
    const created: number[] = [];
    const off = t.app.ctx.bus.subscribe("alert.created", ({ alert_id }) => void created.push(alert_id));
    try {
      const a = { alert_type: "bathroom", level: "warning", description: "Long in the bathroom", idempotency_key: "12:3:0" };
      const [first, second] = await Promise.all([createAlert(t.app.ctx, a), createAlert(t.app.ctx, a)]);
      const third = await createAlert(t.app.ctx, a);
      assert.equal(first.id, second.id);
      assert.equal(first.id, third.id);
      assert.deepEqual(created, [first.id], "escalation is armed once");
      assert.equal((await t.get("/api/v1/alerts?alert_type=bathroom")).body.length, 1);
    } finally {
      off();
    }
  });
});
