/**
 * Gauges read at scrape time from the state the app keeps anyway: queue depths, every part's
 * state and last contact (the parts board, docs/health.md), the leases this instance holds
 * and the store's connection pool. Each scrape resets a gauge first, so a part forgotten or a
 * lease no longer wanted leaves no stale series behind.
 */
import { Gauge, type Registry } from "prom-client";
import type { PlatformContext } from "../../platform/context";
import { leasesOf } from "../../platform/cluster/cluster";
import { PART_STATES } from "../../platform/health/parts-board";
import { poolCounts } from "../../platform/db/pool-counts";

/** A queue's depth, read when asked; names are fixed by the app (a stream's name at most). */
export type QueueReader = () => number | Record<string, number>;

export class QueueDepths {
  private readonly readers = new Map<string, QueueReader>();

  /** `read` gives one depth, or several as `<name>:<part>` (a pump per tracking stream). */
  add(name: string, read: QueueReader): void {
    this.readers.set(name, read);
  }

  read(): Array<[string, number]> {
    const out: Array<[string, number]> = [];
    for (const [name, read] of this.readers) {
      const depth = read();
      if (typeof depth === "number") out.push([name, depth]);
      else for (const [part, n] of Object.entries(depth)) out.push([`${name}:${part}`, n]);
    }
    return out;
  }
}

export function stateGauges(ctx: Pick<PlatformContext, "db" | "parts" | "cluster">, registry: Registry, queues: QueueDepths): void {
  new Gauge({
    name: "careflow_queue_depth",
    help: "Items waiting in each of this instance's work queues (run writes, the input journal, scene samples, each tracking stream).",
    labelNames: ["queue"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [queue, depth] of queues.read()) this.set({ queue }, depth);
    },
  });
  new Gauge({
    name: "careflow_part_state",
    help: "Each part's state as the parts board has it (docs/health.md): 1 for the state it is in, 0 for the others.",
    labelNames: ["part", "kind", "state"],
    registers: [registry],
    collect() {
      this.reset();
      for (const p of ctx.parts?.list() ?? []) for (const state of PART_STATES) this.set({ part: p.id, kind: p.kind, state }, p.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: "careflow_part_last_seen_timestamp_seconds",
    help: "When each part was last heard from (a device's call, a link seen up, a gauge measured), in Unix seconds; absent while never.",
    labelNames: ["part", "kind"],
    registers: [registry],
    collect() {
      this.reset();
      for (const p of ctx.parts?.list() ?? []) if (p.last_seen !== null) this.set({ part: p.id, kind: p.kind }, Date.parse(p.last_seen) / 1000);
    },
  });
  new Gauge({
    name: "careflow_lease_held",
    help: "Whether this instance holds each lease it runs a job under (1) or stands by (0); with one instance every lease is held.",
    labelNames: ["lease"],
    registers: [registry],
    collect() {
      this.reset();
      for (const l of leasesOf(ctx).local()) this.set({ lease: l.name }, l.token === null ? 0 : 1);
    },
  });
  new Gauge({
    name: "careflow_store_pool_connections",
    help: "The store's connection pool: connections in use, idle, queries waiting for one (pending), and its size (max).",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      this.reset();
      const pool = poolCounts(ctx.db);
      if (!pool) return;
      for (const state of ["used", "free", "pending", "max"] as const) this.set({ state }, pool[state]);
    },
  });
}
