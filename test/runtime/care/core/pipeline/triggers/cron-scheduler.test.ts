import assert from "node:assert/strict";
import { CronScheduler } from "../../../../../../runtime/care/core/pipeline/triggers/cron-scheduler";
import { at, iso, startTriggerApp, type TriggerApp } from "./trigger-fixture";

describe("triggers: cron scheduler (Europe/Berlin)", () => {
  let h: TriggerApp;
  let cron: CronScheduler;
  afterEach(async () => {
    cron?.stop();
    await h.t.close();
  });

  async function begin(startIso: string, resyncMs = 0): Promise<void> {
    h = await startTriggerApp(startIso, "Europe/Berlin");
    cron = new CronScheduler(h.t.app.ctx, h.firer, { resyncMs });
  }
  async function moveTo(isoTime: string): Promise<void> {
    h.clock.set(at(isoTime));
    await cron.idle();
  }
  /** Steps to just before and then to each expected instant: nothing early, exactly one run at it. */
  async function expectRunsAt(expected: string[]): Promise<void> {
    for (const when of expected) {
      const before = h.firer.calls.length;
      await moveTo(iso(at(when) - 1000));
      assert.equal(h.firer.calls.length, before, `nothing fires before ${when}`);
      await moveTo(when);
      assert.equal(h.firer.calls.length, before + 1, `one run at ${when}`);
      assert.equal(iso(h.firer.calls.at(-1)!.at), new Date(when).toISOString());
    }
  }

  it("fires a 02:30 rule at the right instants across spring forward, with the sensor and its room", async () => {
    await begin("2026-03-27T12:00:00Z");
    const id = await h.rule({ name: "Night round", trigger_type: "cron", schedule_cron: "30 2 * * *", primary_sensor_id: "hall_pir" });
    cron.start();
    await cron.idle();
    assert.equal(cron.nextRuns().get(id), at("2026-03-28T01:30:00Z"));
    await expectRunsAt(["2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"]);
    assert.deepEqual(h.firer.calls[0].trigger, {
      trigger_type: "cron",
      sensor_id: "hall_pir",
      room_name: "Hall",
      media_paths: [],
      media_type: null,
      webhook_payload: null,
      occupancy_duration_minutes: null,
    });
    assert.equal(h.firer.calls[0].rule_id, id);
    assert.equal(h.firer.calls[0].skip_gates, undefined, "cron runs pass the gates");
  });

  it("fires once in the repeated hour at fall back, and an hourly rule through both passes", async () => {
    await begin("2026-10-23T12:00:00Z");
    const daily = await h.rule({ name: "Night round", trigger_type: "cron", schedule_cron: "30 2 * * *", primary_sensor_id: "hall_pir" });
    cron.start();
    await cron.idle();
    await expectRunsAt(["2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z"]);
    await moveTo("2026-10-26T01:29:59Z");
    assert.equal(h.firer.calls.length, 2, "not again at the second 02:30");
    await moveTo("2026-10-26T01:30:00Z");
    assert.deepEqual(h.firer.ruleIds(), [daily, daily, daily]);

    await h.t.request("PUT", `/api/v1/rules/${daily}`, { body: { enabled: false } });
    const hourly = await h.rule({ name: "Hourly", trigger_type: "cron", schedule_cron: "0 * * * *", primary_sensor_id: "porch_cam" });
    h.t.app.ctx.bus.publish("rules.changed", {});
    await cron.idle();
    h.firer.calls.length = 0;
    cron.stop();
    h.clock.set(at("2027-10-30T23:30:00Z")); // 31 October 2027 is the next fall-back day
    cron = new CronScheduler(h.t.app.ctx, h.firer, { resyncMs: 0 });
    cron.start();
    await cron.idle();
    await expectRunsAt(["2027-10-31T00:00:00Z", "2027-10-31T01:00:00Z", "2027-10-31T02:00:00Z"]);
    assert.deepEqual(h.firer.ruleIds(), [hourly, hourly, hourly]);
    assert.equal(h.firer.calls[0].trigger.room_name, null, "a sensor without a room");
  });

  it("follows rules.changed: a new schedule, a disabled rule, a rule no longer cron", async () => {
    await begin("2026-11-22T06:00:00Z");
    const id = await h.rule({ name: "Breakfast", trigger_type: "cron", schedule_cron: "0 8 * * *", primary_sensor_id: "hall_pir" });
    cron.start();
    await cron.idle();
    assert.equal(cron.nextRuns().get(id), at("2026-11-22T07:00:00Z"));
    await h.t.request("PUT", `/api/v1/rules/${id}`, { body: { schedule_cron: "30 9 * * *" } });
    h.t.app.ctx.bus.publish("rules.changed", {});
    await cron.idle();
    assert.equal(cron.nextRuns().get(id), at("2026-11-22T08:30:00Z"));
    await h.t.request("PUT", `/api/v1/rules/${id}`, { body: { trigger_type: "manual" } });
    h.t.app.ctx.bus.publish("rules.changed", {});
    await cron.idle();
    assert.equal(cron.nextRuns().has(id), false, "no longer a cron rule");
    await h.t.request("PUT", `/api/v1/rules/${id}`, { body: { trigger_type: "cron" } });
    h.t.app.ctx.bus.publish("rules.changed", {});
    await cron.idle();
    assert.equal(cron.nextRuns().get(id), at("2026-11-22T08:30:00Z"), "a cron rule again");
    await h.t.request("PUT", `/api/v1/rules/${id}`, { body: { enabled: false } });
    h.t.app.ctx.bus.publish("rules.changed", {});
    await cron.idle();
    assert.equal(cron.nextRuns().has(id), false, "disabled");
    assert.equal(h.clock.pendingTimers(), 0);
    await moveTo("2026-11-23T00:00:00Z");
    assert.equal(h.firer.calls.length, 0);
  });

  it("re-reads a due rule: a change nobody published is not fired on the old schedule but re-armed", async () => {
    await begin("2026-11-22T06:00:00Z");
    const id = await h.rule({ name: "Breakfast", trigger_type: "cron", schedule_cron: "0 8 * * *", primary_sensor_id: "hall_pir" });
    cron.start();
    await cron.idle();
    await h.t.request("PUT", `/api/v1/rules/${id}`, { body: { schedule_cron: "0 10 * * *" } }); // no publish
    await moveTo("2026-11-22T07:00:00Z");
    assert.equal(h.firer.calls.length, 0, "the old 08:00 does not fire");
    assert.equal(cron.nextRuns().get(id), at("2026-11-22T09:00:00Z"));
    await moveTo("2026-11-22T09:00:00Z");
    assert.deepEqual(h.firer.ruleIds(), [id]);
  });

  it("picks up a rule created without a publish at the next resync", async () => {
    await begin("2026-11-22T06:00:00Z", 60_000);
    cron.start();
    await cron.idle();
    const id = await h.rule({ name: "Breakfast", trigger_type: "cron", schedule_cron: "0 8 * * *", primary_sensor_id: "hall_pir" });
    assert.equal(cron.nextRuns().has(id), false);
    await moveTo("2026-11-22T06:01:00Z");
    assert.equal(cron.nextRuns().get(id), at("2026-11-22T07:00:00Z"));
  });

  it("keeps firing when the firer throws or holds, and stop() disarms everything", async () => {
    await begin("2026-11-22T06:00:00Z");
    await h.rule({ name: "Every minute", trigger_type: "cron", schedule_cron: "* * * * *", primary_sensor_id: "hall_pir" });
    h.firer.answer = () => {
      throw new Error("engine down");
    };
    cron.start();
    await cron.idle();
    await moveTo("2026-11-22T06:03:00Z");
    assert.equal(h.firer.calls.length, 3);
    h.firer.answer = () => ({ execution_id: null, reason: "cool-off" });
    await moveTo("2026-11-22T06:04:00Z");
    assert.equal(h.firer.calls.length, 4);
    cron.stop();
    assert.equal(h.clock.pendingTimers(), 0);
    await moveTo("2026-11-22T07:00:00Z");
    assert.equal(h.firer.calls.length, 4);
  });
});
