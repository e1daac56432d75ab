import assert from "node:assert/strict";
import { startTriggers } from "../../../../../../runtime/care/core/pipeline/triggers/start-triggers";
import { at, startTriggerApp, type TriggerApp } from "./trigger-fixture";

describe("triggers: startTriggers", () => {
  let h: TriggerApp;
  before(async () => (h = await startTriggerApp("2026-11-22T06:00:00Z", "Asia/Kolkata")));
  after(() => h.t.close());

  it("starts cron, sensor_event and occupancy triggers together, and stops them all", async () => {
    const cron = await h.rule({ name: "Breakfast", trigger_type: "cron", schedule_cron: "0 12 * * *", primary_sensor_id: "hall_pir" });
    const cam = await h.rule({ name: "Hall camera", trigger_type: "sensor_event", primary_sensor_id: "hall_cam" });
    const bath = await h.rule({ name: "Long bath", trigger_type: "occupancy_duration", primary_sensor_id: "bath_pir", occupancy_config: { min_minutes: 20 } });
    const running = startTriggers(h.t.app.ctx, h.firer, { cron: { resyncMs: 0 } });
    await running.idle();

    h.t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_cam", room_name: "Hall" });
    h.t.app.ctx.bus.publish("sensor.event", { kind: "presence", room_name: null, sensor_id: "bath_pir", occupied: true, at: h.clock.now() });
    await running.idle();
    h.clock.set(at("2026-11-22T06:30:00Z")); // 12:00 in Kolkata; the bath has been occupied for 30 minutes
    await running.idle();
    assert.deepEqual(
      h.firer.ruleIds().sort((a, b) => a - b),
      [cron, cam, bath],
    );

    running.stop();
    assert.equal(h.clock.pendingTimers(), 0);
    h.t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_cam", room_name: "Hall" });
    await running.idle();
    assert.equal(h.firer.calls.length, 3);
  });
});
