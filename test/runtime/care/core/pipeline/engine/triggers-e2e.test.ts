/**
 * Triggers, gates and the engine together, through the real app on a controllable clock:
 * a webhook with its secret, a sensor event held and then let through by a time filter,
 * cool-off between firings, and a cron schedule in the household's time zone.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { engineQuiet } from "../../../../../support/engine-quiet";
import { eventually } from "../../../../../support/eventually";

describe("triggers through the engine", function () {
  this.timeout(30000);
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    // 10:00 in Berlin (CEST) on a Monday.
    clock = new ManualClock(Date.parse("2026-06-01T08:00:00Z"));
    t = await startTestApp({ nodeRed: true, clock, settings: { app: { timezone: "Europe/Berlin" } } });
    await t.post("/api/v1/rooms", { name: "hallway" });
    const room = (await t.get("/api/v1/rooms")).body[0].id;
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence", room_id: room });
  });
  after(() => t.close());

  const importRule = async (bundle: Record<string, unknown>) => {
    const res = await t.post("/api/v1/rules/import", { schema_version: 1, ...bundle });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id as number;
  };
  const runsOf = async (ruleId: number) => (await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body as Array<Record<string, any>>;
  const settle = async (ruleId: number, n: number) =>
    eventually(`${n} finished run(s) of rule ${ruleId}`, async () => {
      const runs = await runsOf(ruleId);
      return runs.length >= n && runs.every((r) => r.status !== "running") ? runs : undefined;
    });
  /** Whatever the triggers were handed so far decided, and any run it started finished. */
  const triggersDone = async () => {
    await t.app.triggers!.idle();
    await engineQuiet(t.app.engine);
  };
  /** Resolves at the next `rules.changed` (the runtime runs the deployed flows; triggers re-read them). */
  const nextRulesChange = () =>
    new Promise<void>((resolve) => {
      const off = t.app.ctx.bus.subscribe("rules.changed", () => {
        off();
        resolve();
      });
    });

  it("fires a webhook rule with the right secret only, with the body as trigger_input", async () => {
    const id = await importRule({
      rule: { name: "Hook", trigger_type: "webhook" },
      steps: [{ label: "c", step_type: "condition", config: { expression: "trigger_input.kind == 'doorbell'" } }],
    });
    const { body: secret } = await t.post(`/api/v1/webhooks/${id}/generate-secret`);
    const hook = (s: string | null, body: unknown) =>
      fetch(`${t.baseUrl}/api/v1/webhooks/${id}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(s ? { "x-webhook-secret": s } : {}) },
        body: JSON.stringify(body),
      });
    assert.equal((await hook(null, {})).status, 401);
    assert.equal((await hook("wrong-secret", {})).status, 403);
    const res = await hook(secret.secret, { kind: "doorbell" });
    assert.equal(res.status, 200);
    const { execution_id } = (await res.json()) as { execution_id: number };
    const [run] = await settle(id, 1);
    assert.equal(run.id, execution_id);
    assert.equal(run.status, "completed");
    assert.deepEqual(run.pipeline_data.trigger_input, { kind: "doorbell" });
    assert.equal(run.pipeline_data.condition.result, true);
  });

  it("holds a sensor event outside the rule's time range and fires inside it", async () => {
    const id = await importRule({
      rule: { name: "Night hall", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "hall_pir" } },
      contexts: [{ context_type: "time_range", config: { start_time: "22:00", end_time: "06:00" } }],
      steps: [{ label: "c", step_type: "condition", config: { expression: "room_name == 'hallway'" } }],
    });
    t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_pir", room_name: "hallway" });
    await triggersDone();
    assert.equal((await runsOf(id)).length, 0, "10:00 is outside 22:00-06:00: no execution");
    clock.set(Date.parse("2026-06-01T21:30:00Z")); // 23:30 in Berlin
    t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_pir", room_name: "hallway" });
    const runs = await settle(id, 1);
    assert.equal(runs.length, 1);
    assert.equal(runs[0].status, "completed");
    assert.equal(runs[0].trigger_context.sensor_id, "hall_pir");
  });

  it("holds a second firing within cool-off after a completed run, and says why", async () => {
    const id = await importRule({
      rule: { name: "Cool", trigger_type: "webhook", cool_off_minutes: 30 },
      steps: [{ label: "c", step_type: "condition", config: { expression: "true", trigger_cooloff: true } }],
    });
    const { body: secret } = await t.post(`/api/v1/webhooks/${id}/generate-secret`);
    const fire = async () =>
      (
        await fetch(`${t.baseUrl}/api/v1/webhooks/${id}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-webhook-secret": secret.secret },
          body: "{}",
        })
      ).json() as Promise<{ execution_id: number | null; reason?: string }>;
    assert.ok((await fire()).execution_id);
    await settle(id, 1);
    const held = await fire();
    assert.equal(held.execution_id, null);
    assert.match(held.reason ?? "", /cool/i);
    clock.advance(31 * 60_000);
    assert.ok((await fire()).execution_id, "fires again after the cool-off");
  });

  it("fires a cron rule at its local time", async () => {
    clock.set(Date.parse("2026-06-02T05:58:00Z")); // 07:58 in Berlin
    const deployed = nextRulesChange();
    const id = await importRule({
      rule: { name: "Eight o'clock", trigger_type: "cron", schedule_cron: "0 8 * * *", primary_sensor_ref: { kind: "sensor", label: "hall_pir" } },
      steps: [{ label: "c", step_type: "condition", config: { expression: "system.local_time_24h == '08:00'" } }],
    });
    await deployed;
    await t.app.triggers!.idle(); // the cron scheduler re-read the rules: this one is armed
    clock.advance(60_000);
    await triggersDone();
    assert.equal((await runsOf(id)).length, 0, "not at 07:59");
    clock.advance(60_000);
    const runs = await settle(id, 1);
    assert.equal(runs.length, 1, "fired at 08:00 local");
    assert.equal(runs[0].pipeline_data.condition.result, true);
    assert.equal(runs[0].trigger_type, "cron");
  });
});
