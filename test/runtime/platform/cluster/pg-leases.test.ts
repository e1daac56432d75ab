/**
 * Leases as PostgreSQL rows, with two instances (each its own connection pool) on the machine's
 * PostgreSQL: one holder at a time, the lease moving to the survivor when the holder stops
 * renewing without giving it back (a killed process), at once when it is given back, a larger
 * fencing token at each change of holder, and a holder that loses its row stopping its work.
 * Expiry is driven by a ManualClock; the last test does the same in real time.
 */
import assert from "node:assert/strict";
import { ManualClock, systemClock, type Clock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { PgLeases } from "../../../../runtime/platform/cluster/pg-leases";
import { whileHolding, type LeaseGrant } from "../../../../runtime/platform/cluster/leases";
import type { Store } from "../../../../runtime/platform/db/store";
import { sharedPg, type SharedPg } from "../../../support/pg-cluster";

const LEASE_MS = 3000;
const PERIOD = LEASE_MS / 3;

/** What a leased job saw: its grants, and whether it is running now. */
class Job {
  grants: LeaseGrant[] = [];
  running = false;
  losses = 0;
  handlers = {
    onAcquire: (g: LeaseGrant) => {
      this.grants.push(g);
      this.running = true;
    },
    onLose: () => {
      this.running = false;
      this.losses += 1;
    },
  };
}

describe("cluster: PostgreSQL leases between two instances", function () {
  this.timeout(30_000);
  let pg: SharedPg;
  let storeA: Store;
  let storeB: Store;
  const log = createLogger("silent");
  let made: PgLeases[] = [];

  const instance = async (store: Store, id: string, clock: Clock, leaseMs = LEASE_MS): Promise<PgLeases> => {
    const l = new PgLeases({ db: store.db, clock, log, instanceId: id, leaseMs });
    made.push(l);
    await l.start();
    return l;
  };

  before(async function () {
    pg = await sharedPg(this);
    storeA = await pg.open();
    storeB = await pg.open();
  });
  after(() => pg?.drop());
  beforeEach(async () => {
    await storeA.db("cluster_leases").delete();
    await storeA.db("cluster_instances").delete();
  });
  afterEach(async () => {
    for (const l of made) await l.stop().catch(() => undefined);
    made = [];
  });

  /** Moves the clock one renewal period at a time, letting each instance's round finish. */
  const advance = async (clock: ManualClock, ms: number, ...all: PgLeases[]): Promise<void> => {
    for (let done = 0; done < ms; done += PERIOD) {
      clock.advance(Math.min(PERIOD, ms - done));
      for (const l of all) await l.settled();
    }
  };

  it("gives a lease to one instance only, and both instances are listed", async () => {
    const clock = new ManualClock();
    const a = await instance(storeA, "a", clock);
    const b = await instance(storeB, "b", clock);
    const [ja, jb] = [new Job(), new Job()];
    a.run("cron", ja.handlers);
    await a.settled();
    b.run("cron", jb.handlers);
    await advance(clock, 4 * LEASE_MS, a, b);
    assert.equal(ja.running, true);
    assert.equal(jb.running, false);
    assert.deepEqual(ja.grants, [{ name: "cron", token: 1 }]);
    assert.equal(a.holds("cron"), true);
    assert.equal(b.holds("cron"), false);
    const ids = (await storeA.db("cluster_instances").select("instance_id").orderBy("instance_id")).map((r) => r.instance_id);
    assert.deepEqual(ids, ["a", "b"]);
  });

  it("moves the lease to the survivor within lease_seconds of the holder's last renewal, with a larger token", async () => {
    const clock = new ManualClock();
    const a = await instance(storeA, "a", clock);
    const b = await instance(storeB, "b", clock);
    const [ja, jb] = [new Job(), new Job()];
    a.run("reports", ja.handlers);
    await a.settled();
    b.run("reports", jb.handlers);
    await advance(clock, PERIOD, a, b);
    const lastRenewal = clock.now();
    await a.halt(); // killed: no more renewals, nothing given back
    await advance(clock, LEASE_MS - PERIOD, b);
    assert.equal(jb.running, false, "taken over before the lease expired");
    await advance(clock, PERIOD, b);
    assert.equal(jb.running, true);
    assert.ok(clock.now() - lastRenewal <= LEASE_MS + PERIOD);
    assert.deepEqual(jb.grants, [{ name: "reports", token: 2 }]);
    assert.equal(b.holds("reports"), true);
  });

  it("hands a lease given back to the other instance at its next round", async () => {
    const clock = new ManualClock();
    const a = await instance(storeA, "a", clock);
    const b = await instance(storeB, "b", clock);
    const [ja, jb] = [new Job(), new Job()];
    const stopA = a.run("chat-poller", ja.handlers);
    await a.settled();
    b.run("chat-poller", jb.handlers);
    await b.settled();
    await stopA();
    assert.equal(ja.running, false);
    assert.equal(ja.losses, 1);
    await advance(clock, PERIOD, a, b);
    assert.equal(jb.running, true);
    assert.equal(jb.grants[0].token, 2);
  });

  it("runs a job started with whileHolding on the holder only, stops it when given up, and starts it on the other with its grant", async () => {
    const clock = new ManualClock();
    const a = await instance(storeA, "a", clock);
    const b = await instance(storeB, "b", clock);
    const seen: string[] = [];
    const job = (id: string) => (grant: LeaseGrant) => {
      seen.push(`${id} started with token ${grant.token}`);
      return () => void seen.push(`${id} stopped`);
    };
    const stopA = whileHolding(a, "reports", job("a"));
    await a.settled();
    whileHolding(b, "reports", job("b"));
    await advance(clock, PERIOD, a, b);
    assert.deepEqual(seen, ["a started with token 1"]);
    await stopA();
    await stopA();
    await advance(clock, PERIOD, a, b);
    assert.deepEqual(seen, ["a started with token 1", "a stopped", "b started with token 2"], "stopped once, then taken over");
  });

  it("stops the work of a holder whose lease another instance took", async () => {
    const clock = new ManualClock();
    const a = await instance(storeA, "a", clock);
    const ja = new Job();
    a.run("hub", ja.handlers);
    await a.settled();
    assert.equal(ja.running, true);
    // As if the row had expired and been taken while this instance was stalled.
    await storeB.db("cluster_leases").where({ name: "hub" }).update({ holder: "b", token: 7 });
    await advance(clock, PERIOD, a);
    assert.equal(ja.running, false);
    assert.equal(a.holds("hub"), false);
  });

  it("stops the work at the lease's expiry when renewals cannot reach the database", async () => {
    const clock = new ManualClock();
    const a = await instance(storeA, "a", clock);
    const ja = new Job();
    a.run("retention:sightings", ja.handlers);
    await a.settled();
    const round = clock.now();
    // Every query of this instance's rounds fails from now on.
    await storeA.db.raw("alter table cluster_leases rename to cluster_leases_away");
    try {
      await advance(clock, LEASE_MS - PERIOD, a);
      assert.equal(ja.running, true, "stopped before the lease ran out");
      await advance(clock, PERIOD, a);
      assert.equal(ja.running, false);
      assert.ok(clock.now() - round <= LEASE_MS);
    } finally {
      await storeA.db.raw("alter table cluster_leases_away rename to cluster_leases");
    }
  });

  it("fails over in real time: a lease of 1 s reaches the survivor within 1.4 s of the holder's death", async function () {
    const a = await instance(storeA, "a", systemClock, 1000);
    const b = await instance(storeB, "b", systemClock, 1000);
    const jb = new Job();
    a.run("cron", new Job().handlers);
    await a.settled();
    const taken = new Promise<number>((resolve) => {
      b.run("cron", {
        onAcquire: (g) => {
          jb.handlers.onAcquire(g);
          resolve(Date.now());
        },
        onLose: jb.handlers.onLose,
      });
    });
    await b.settled();
    assert.equal(jb.running, false);
    const { expires_at } = await storeA.db("cluster_leases").where({ name: "cron" }).first();
    const died = Date.now();
    await a.halt();
    const at = await taken;
    assert.ok(at >= Number(expires_at) - 5, "taken over before the holder's lease expired");
    assert.ok(at - died <= 1400, `took ${at - died} ms`);
  });
});
