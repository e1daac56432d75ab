/**
 * The cron scheduler under the `cron` lease with two instances (leases on the machine's
 * PostgreSQL, one ManualClock): a rule due every minute fires once a minute, from the holder
 * only, and keeps firing once a minute from the survivor after the holder dies.
 */
import assert from "node:assert/strict";
import { startTriggers, type RunningTriggers } from "../../../../../../runtime/care/core/pipeline/triggers/start-triggers";
import { PgLeases } from "../../../../../../runtime/platform/cluster/pg-leases";
import { createLogger } from "../../../../../../runtime/platform/core/logger";
import type { Cluster } from "../../../../../../runtime/platform/cluster/cluster";
import { sharedPg, type SharedPg } from "../../../../../support/pg-cluster";
import { FakeFirer, at, startTriggerApp, type TriggerApp } from "./trigger-fixture";

const LEASE_MS = 3000;

describe("triggers: cron under a lease, two instances", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let h: TriggerApp;
  const running: RunningTriggers[] = [];
  const leases: PgLeases[] = [];

  before(async function () {
    pg = await sharedPg(this);
    h = await startTriggerApp("2026-11-22T06:00:00Z");
  });
  after(async () => {
    for (const r of running) r.stop();
    for (const l of leases) await l.stop().catch(() => undefined);
    await h?.t.close();
    await pg?.drop();
  });

  /** One instance: its own leases (its own pool) and firer, the app's rules and clock. */
  const instance = async (id: string): Promise<{ leases: PgLeases; firer: FakeFirer; triggers: RunningTriggers }> => {
    const store = await pg.open();
    const l = new PgLeases({ db: store.db, clock: h.clock, log: createLogger("silent"), instanceId: id, leaseMs: LEASE_MS });
    leases.push(l);
    await l.start();
    const firer = new FakeFirer(h.clock);
    const cluster = { enabled: true, instanceId: id, leases: l } as Pick<Cluster, "enabled" | "instanceId" | "leases"> as Cluster;
    const triggers = startTriggers({ ...h.t.app.ctx, cluster }, firer, { cron: { resyncMs: 0 } });
    running.push(triggers);
    await l.settled();
    await triggers.idle();
    return { leases: l, firer, triggers };
  };

  /** Moves the clock to `iso` in steps of a third of the lease, letting rounds and fires finish. */
  const moveTo = async (iso: string, all: Array<{ leases: PgLeases; triggers: RunningTriggers }>): Promise<void> => {
    while (h.clock.now() < at(iso)) {
      h.clock.set(Math.min(at(iso), h.clock.now() + LEASE_MS / 3));
      for (const i of all) {
        await i.leases.settled();
        await i.triggers.idle();
      }
    }
  };

  it("fires each minute once, from the holder, and from the survivor after the holder dies", async () => {
    await h.rule({ name: "Every minute", trigger_type: "cron", schedule_cron: "* * * * *", primary_sensor_id: "hall_pir" });
    const a = await instance("a");
    const b = await instance("b");
    await moveTo("2026-11-22T06:03:10Z", [a, b]);
    assert.equal(a.firer.calls.length, 3);
    assert.equal(b.firer.calls.length, 0);

    await a.leases.halt(); // a dies 10 s into the minute; b takes cron within 4 s
    await moveTo("2026-11-22T06:06:10Z", [b]);
    assert.equal(a.firer.calls.length, 3);
    assert.deepEqual(
      b.firer.calls.map((c) => new Date(c.at).toISOString()),
      ["2026-11-22T06:04:00.000Z", "2026-11-22T06:05:00.000Z", "2026-11-22T06:06:00.000Z"],
    );
  });
});
