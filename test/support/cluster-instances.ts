/**
 * Instances of one careflow in one test process (the cluster tests of the timed jobs): each has
 * its own pool on the shared PostgreSQL database, its own bus, web-app recorder and PgLeases,
 * and shares the app's clock (a ManualClock), settings and flows. `moveTo` moves the clock in
 * thirds of a lease so rounds, takeovers and the work they start happen as they would live.
 */
import type { AppContext } from "../../runtime/app/context";
import type { Cluster } from "../../runtime/platform/cluster/cluster";
import { PgLeases } from "../../runtime/platform/cluster/pg-leases";
import type { ManualClock } from "../../runtime/platform/core/clock";
import { EventBus } from "../../runtime/platform/core/event-bus";
import { createLogger } from "../../runtime/platform/core/logger";
import type { WebAppFrame, WebAppHub } from "../../runtime/platform/ws/webapp-hub";
import type { SharedPg } from "./pg-cluster";

export const LEASE_MS = 3000;

export interface Instance {
  id: string;
  ctx: AppContext;
  leases: PgLeases;
  leaseMs: number;
  /** What this instance's web-app clients were sent. */
  frames: WebAppFrame[];
  /** Waits for what this instance's jobs started (set by the test). */
  settle: () => Promise<void>;
  /** Dead (halted): no longer moved along. */
  dead: boolean;
}

/** `leaseMs`: a minute suits jobs timed in minutes (the clock then moves 20 s at a time). */
export async function startInstance(pg: SharedPg, base: AppContext, clock: ManualClock, id: string, leaseMs = LEASE_MS): Promise<Instance> {
  const store = await pg.open();
  const leases = new PgLeases({ db: store.db, clock, log: createLogger("silent"), instanceId: id, leaseMs });
  await leases.start();
  const frames: WebAppFrame[] = [];
  // The app's web-app hub, but what this instance broadcasts is recorded here (one client).
  const broadcast = (frame: WebAppFrame): number => {
    frames.push(frame);
    return 1;
  };
  const webapp = new Proxy(base.webapp, {
    get: (target, prop) => {
      if (prop === "broadcast") return broadcast;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === "function" ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  }) as WebAppHub;
  const cluster = { enabled: true, instanceId: id, leases } as Pick<Cluster, "enabled" | "instanceId" | "leases"> as Cluster;
  const ctx = { ...base, db: store.db, dialect: "postgres", bus: new EventBus(), webapp, cluster } as AppContext;
  return { id, ctx, leases, leaseMs, frames, settle: () => Promise.resolve(), dead: false };
}

/** The instance dies as a killed process would: its jobs stop, its leases are left to expire. */
export async function kill(i: Instance): Promise<void> {
  i.dead = true;
  await i.leases.halt();
  await i.settle();
}

/** Moves the clock to `targetMs` in thirds of a lease, letting every live instance's rounds and work finish at each step. */
export async function moveTo(clock: ManualClock, targetMs: number, all: Instance[]): Promise<void> {
  const settleAll = async () => {
    for (const i of all.filter((x) => !x.dead)) {
      await i.leases.settled();
      await i.settle();
    }
  };
  await settleAll();
  const step = Math.min(...all.map((i) => i.leaseMs)) / 3;
  while (clock.now() < targetMs) {
    clock.set(Math.min(targetMs, clock.now() + step));
    await settleAll();
    // Work started by a settle (a fetch, then a timer armed) gets its turn too.
    await settleAll();
  }
}

export const holderOf = (name: string, all: Instance[]): string[] => all.filter((i) => !i.dead && i.leases.holds(name)).map((i) => i.id);
