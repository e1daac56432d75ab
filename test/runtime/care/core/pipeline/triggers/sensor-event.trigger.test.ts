import assert from "node:assert/strict";
import { SensorEventTrigger } from "../../../../../../runtime/care/core/pipeline/triggers/sensor-event.trigger";
import { captureLog } from "../../../../../support/capture-log";
import { startTriggerApp, type TriggerApp } from "./trigger-fixture";

describe("triggers: sensor_event", () => {
  let h: TriggerApp;
  let trigger: SensorEventTrigger;
  const captured = captureLog("debug");
  let ids: Record<string, number>;
  before(async () => {
    h = await startTriggerApp("2026-11-22T09:00:00Z", "UTC", captured.log);
    ids = {
      hallCam: await h.rule({ name: "Hall camera", trigger_type: "sensor_event", primary_sensor_id: "hall_cam" }),
      anySensor: await h.rule({ name: "Any sensor", trigger_type: "sensor_event" }),
      porch: await h.rule({ name: "Porch camera", trigger_type: "sensor_event", primary_sensor_id: "porch_cam" }),
      disabled: await h.rule({ name: "Disabled", trigger_type: "sensor_event", primary_sensor_id: "hall_cam", enabled: false }),
      cron: await h.rule({ name: "Cron on hall cam", trigger_type: "cron", schedule_cron: "0 8 * * *", primary_sensor_id: "hall_cam" }),
    };
    trigger = new SensorEventTrigger(h.t.app.ctx, h.firer);
    trigger.start();
  });
  after(async () => {
    trigger.stop();
    await h.t.close();
  });
  beforeEach(() => {
    h.firer.calls.length = 0;
    h.firer.answer = () => ({ execution_id: 1 });
  });

  it("fires the enabled sensor_event rules of the sensor, and those without a primary sensor, with the event's context", async () => {
    h.t.app.ctx.bus.publish("sensor.event", {
      sensor_id: "hall_cam",
      room_name: "Hall",
      media_paths: ["media/a.jpg", "media/b.jpg"],
      media_type: "image/jpeg",
      kind: "camera_batch",
      batch_id: 1,
    });
    await trigger.idle();
    assert.deepEqual(h.firer.ruleIds().sort(), [ids.hallCam, ids.anySensor].sort());
    for (const c of h.firer.calls) {
      assert.deepEqual(c.trigger, {
        trigger_type: "sensor_event",
        sensor_id: "hall_cam",
        room_name: "Hall",
        media_paths: ["media/a.jpg", "media/b.jpg"],
        media_type: "image/jpeg",
        webhook_payload: null,
        occupancy_duration_minutes: null,
      });
      assert.equal(c.skip_gates, undefined);
    }
  });

  it("fires only the rules without a primary sensor for a sensor no rule names", async () => {
    h.t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "bath_pir", room_name: "Bathroom" });
    await trigger.idle();
    assert.deepEqual(h.firer.ruleIds(), [ids.anySensor]);
    assert.deepEqual(h.firer.calls[0].trigger.media_paths, []);
    assert.equal(h.firer.calls[0].trigger.media_type, null);
  });

  it("sees a rule change at the next event, without a publish", async () => {
    await h.t.request("PUT", `/api/v1/rules/${ids.disabled}`, { body: { enabled: true } });
    h.t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_cam", room_name: "Hall" });
    await trigger.idle();
    assert.deepEqual(h.firer.ruleIds().sort(), [ids.hallCam, ids.anySensor, ids.disabled].sort());
    await h.t.request("PUT", `/api/v1/rules/${ids.disabled}`, { body: { enabled: false } });
  });

  it("logs a firer that throws and keeps going", async () => {
    captured.lines.length = 0;
    h.firer.answer = (req) => {
      if (req.rule_id === ids.hallCam) throw new Error("engine down");
      return { execution_id: null, reason: "cool-off" };
    };
    h.t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_cam", room_name: "Hall" });
    await trigger.idle();
    assert.equal(h.firer.calls.length, 2);
    const failed = captured.lines.find((l) => l.msg === "firing the rule failed");
    assert.equal(failed?.rule_id, ids.hallCam);
    assert.ok(captured.lines.some((l) => l.msg === "rule not started" && l.reason === "cool-off" && l.level === 20));
  });

  it("stops listening on stop()", async () => {
    trigger.stop();
    h.t.app.ctx.bus.publish("sensor.event", { kind: "button", input: {}, sensor_id: "hall_cam", room_name: "Hall" });
    await trigger.idle();
    assert.equal(h.firer.calls.length, 0);
    trigger.start();
  });
});
