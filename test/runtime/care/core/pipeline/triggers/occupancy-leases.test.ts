/**
 * occupancy_duration timers with two instances on the machine's PostgreSQL (one ManualClock):
 * presence events reach one instance (the hub's) while the `occupancy` lease may be held by
 * the other; a period fires its rule once, from the holder; a departure seen by the other
 * instance ends it; and when the holder dies the survivor rebuilds the period from the recorded
 * presence and fires it once, at its time or at once when that has passed, never twice.
 */
import assert from "node:assert/strict";
import { startTriggers, type RunningTriggers } from "../../../../../../runtime/care/core/pipeline/triggers/start-triggers";
import { sharedPg, type SharedPg } from "../../../../../support/pg-cluster";
import { kill, moveTo, startInstance, type Instance } from "../../../../../support/cluster-instances";
import { FakeFirer, startTriggerApp, type TriggerApp } from "./trigger-fixture";

const MIN = 60_000;
const LEASE_MS = 3000;

describe("triggers: occupancy_duration under a lease, two instances", function () {
  this.timeout(120_000);
  let pg: SharedPg;
  let h: TriggerApp;
  let a: Instance;
  let b: Instance;
  const firers = new Map<Instance, FakeFirer>();
  const running: RunningTriggers[] = [];
  let rule: number;
  let hallRule: number;

  before(async function () {
    pg = await sharedPg(this);
    h = await startTriggerApp("2026-11-22T09:00:00Z");
    rule = await h.rule({ name: "Long bath", trigger_type: "occupancy_duration", primary_sensor_id: "bath_pir", occupancy_config: { min_minutes: 5 } });
    hallRule = await h.rule({ name: "Hall dwell", trigger_type: "occupancy_duration", primary_sensor_id: "hall_pir", occupancy_config: { min_minutes: 5 } });
    a = await startInstance(pg, h.t.app.ctx, h.clock, "a", LEASE_MS);
    b = await startInstance(pg, h.t.app.ctx, h.clock, "b", LEASE_MS);
    for (const i of [a, b]) {
      const firer = new FakeFirer(h.clock);
      firers.set(i, firer);
      const triggers = startTriggers(i.ctx, firer, { cron: { resyncMs: 0 } });
      running.push(triggers);
      i.settle = () => triggers.idle();
    }
    await moveTo(h.clock, h.clock.now(), [a, b]);
  });
  after(async () => {
    for (const r of running) r.stop();
    for (const i of [a, b]) await i?.leases.stop().catch(() => undefined);
    await h?.t.close();
    await pg?.drop();
  });

  const roles = (): [Instance, Instance] => (a.leases.holds("occupancy") ? [a, b] : [b, a]);
  const presence = async (i: Instance, occupied: boolean, sensor_id = "bath_pir"): Promise<void> => {
    i.ctx.bus.publish("sensor.event", { kind: "presence", room_name: null, sensor_id, occupied, at: h.clock.now() });
    await i.settle();
  };
  const fired = (i: Instance): number[] => firers.get(i)!.calls.map((c) => c.at);

  it("fires once, from the holder, for a period whose events reached the other instance", async () => {
    const [holder, other] = roles();
    const start = h.clock.now();
    await presence(other, true);
    await moveTo(h.clock, start + 5 * MIN - 1000, [a, b]);
    assert.deepEqual(fired(holder), []);
    await moveTo(h.clock, start + 5 * MIN, [a, b]);
    assert.deepEqual(fired(holder), [start + 5 * MIN]);
    assert.deepEqual(firers.get(holder)!.ruleIds(), [rule]);
    assert.equal(firers.get(holder)!.calls[0].trigger.occupancy_duration_minutes, 5);
    await moveTo(h.clock, start + 7 * MIN, [a, b]);
    assert.deepEqual(fired(other), []);
    assert.equal(fired(holder).length, 1, "once per period");
    await presence(other, false);
  });

  it("ends the period on a departure seen by the other instance", async () => {
    const [holder, other] = roles();
    const before = fired(holder).length;
    const start = h.clock.now();
    await presence(other, true);
    await moveTo(h.clock, start + 3 * MIN, [a, b]);
    await presence(other, false);
    await moveTo(h.clock, start + 6 * MIN, [a, b]);
    assert.equal(fired(holder).length, before);
    assert.deepEqual(fired(other), []);
  });

  it("survives the holder's death: periods are rebuilt, the one fired already not fired again, the other at its time", async () => {
    const [holder, other] = roles();
    const before = fired(holder).length;
    const start = h.clock.now();
    await presence(other, true);
    await moveTo(h.clock, start + 5 * MIN, [a, b]);
    assert.equal(fired(holder).length, before + 1, "the bathroom fired by the holder");
    await presence(other, true, "hall_pir"); // due at 10 min
    await moveTo(h.clock, start + 8 * MIN, [a, b]);
    await kill(holder);
    await moveTo(h.clock, start + 8 * MIN + 5000, [a, b]);
    assert.ok(other.leases.holds("occupancy"), "the survivor took the timers over within 5 s");
    assert.deepEqual(fired(other), [], "the bathroom's period had fired already: not again");
    await moveTo(h.clock, start + 12 * MIN, [a, b]);
    assert.deepEqual(fired(other), [start + 10 * MIN], "the hall's period, rebuilt, fires at its time");
    assert.deepEqual(firers.get(other)!.ruleIds(), [hallRule]);
    assert.equal(fired(holder).length, before + 1);
  });
});
