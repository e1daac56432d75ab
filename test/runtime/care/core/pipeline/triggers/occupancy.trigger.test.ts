import assert from "node:assert/strict";
import { OccupancyTrigger } from "../../../../../../runtime/care/core/pipeline/triggers/occupancy.trigger";
import { at, startTriggerApp, type TriggerApp } from "./trigger-fixture";

const MIN = 60_000;

describe("triggers: occupancy_duration", () => {
  let h: TriggerApp;
  let occ: OccupancyTrigger;
  let long: number;
  let longer: number;
  const T0 = "2026-11-22T09:00:00Z";

  beforeEach(async () => {
    h = await startTriggerApp(T0);
    long = await h.rule({ name: "Long bath", trigger_type: "occupancy_duration", primary_sensor_id: "bath_pir", occupancy_config: { min_minutes: 20 } });
    longer = await h.rule({ name: "Very long bath", trigger_type: "occupancy_duration", primary_sensor_id: "bath_pir", occupancy_config: { min_minutes: 45 } });
    await h.rule({ name: "Hall dwell", trigger_type: "occupancy_duration", primary_sensor_id: "hall_pir", occupancy_config: { min_minutes: 5 } });
    occ = new OccupancyTrigger(h.t.app.ctx, h.firer);
    occ.start();
  });
  afterEach(async () => {
    occ.stop();
    await h.t.close();
  });

  const presence = async (sensor_id: string, occupied: boolean) => {
    h.t.app.ctx.bus.publish("sensor.event", { kind: "presence", room_name: null, sensor_id, occupied, at: h.clock.now() });
    await occ.idle();
  };
  const advance = async (minutes: number) => {
    h.clock.advance(minutes * MIN);
    await occ.idle();
  };

  it("fires each rule once when the sensor has been occupied for its min_minutes", async () => {
    await presence("bath_pir", true);
    await advance(19);
    assert.equal(h.firer.calls.length, 0);
    await presence("bath_pir", true); // still occupied: the same period
    await advance(1);
    assert.deepEqual(h.firer.ruleIds(), [long]);
    assert.equal(h.firer.calls[0].at, at(T0) + 20 * MIN);
    assert.deepEqual(h.firer.calls[0].trigger, {
      trigger_type: "occupancy_duration",
      sensor_id: "bath_pir",
      room_name: "Bathroom",
      media_paths: [],
      media_type: null,
      webhook_payload: null,
      occupancy_duration_minutes: 20,
    });
    await advance(25);
    assert.deepEqual(h.firer.ruleIds(), [long, longer]);
    assert.equal(h.firer.calls[1].trigger.occupancy_duration_minutes, 45);
    await advance(120);
    assert.equal(h.firer.calls.length, 2, "once per occupied period");
  });

  it("leaving resets: a short visit fires nothing, the next long one fires again", async () => {
    await presence("bath_pir", true);
    await advance(10);
    await presence("bath_pir", false);
    assert.equal(h.clock.pendingTimers(), 0);
    await advance(60);
    assert.equal(h.firer.calls.length, 0);
    await presence("bath_pir", true);
    await advance(20);
    assert.deepEqual(h.firer.ruleIds(), [long]);
    await presence("bath_pir", false);
    await presence("bath_pir", true);
    await advance(20);
    assert.deepEqual(h.firer.ruleIds(), [long, long], "a new period fires again");
  });

  it("tracks sensors independently and counts from the event's time", async () => {
    h.t.app.ctx.bus.publish("sensor.event", { kind: "presence", room_name: null, sensor_id: "hall_pir", occupied: true, at: h.clock.now() - 3 * MIN });
    await occ.idle();
    await presence("bath_pir", true);
    await advance(2);
    assert.deepEqual(
      h.firer.calls.map((c) => [c.trigger.sensor_id, c.trigger.room_name, c.trigger.occupancy_duration_minutes]),
      [["hall_pir", "Hall", 5]],
    );
    assert.deepEqual([...occ.occupiedSince().keys()].sort(), ["bath_pir", "hall_pir"]);
  });

  it("follows rules.changed during a period, and re-reads a due rule that changed unannounced", async () => {
    await presence("bath_pir", true);
    await h.t.request("PUT", `/api/v1/rules/${long}`, { body: { occupancy_config: { min_minutes: 10 } } });
    h.t.app.ctx.bus.publish("rules.changed", {});
    await occ.idle();
    await advance(10);
    assert.deepEqual(h.firer.ruleIds(), [long]);
    await h.t.request("PUT", `/api/v1/rules/${longer}`, { body: { occupancy_config: { min_minutes: 60 } } }); // no publish
    await advance(35); // minute 45, the old due time
    assert.deepEqual(h.firer.ruleIds(), [long], "not on the old min_minutes");
    await advance(15);
    assert.deepEqual(h.firer.ruleIds(), [long, longer]);
    assert.equal(h.firer.calls[1].trigger.occupancy_duration_minutes, 60);
  });

  it("does not fire a disabled rule", async () => {
    await h.t.request("PUT", `/api/v1/rules/${long}`, { body: { enabled: false } });
    await presence("bath_pir", true);
    await advance(45);
    assert.deepEqual(h.firer.ruleIds(), [longer]);
  });
});
