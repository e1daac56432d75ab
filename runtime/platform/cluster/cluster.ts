/**
 * The cluster this instance belongs to (`cluster.*` settings, docs/cluster.md): its id, its
 * leases, and what `/health` and `GET /api/v1/admin/cluster` say about the instances and who
 * holds each lease. Disabled (the default), it is this one instance holding every lease.
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import type { Knex } from "knex";
import type { ClusterSettings } from "../../../settings";
import { isoAt, type Clock } from "../core/clock";
import type { Logger } from "../core/logger";
import { SettingsError } from "../config/load-settings";
import type { Leases } from "./leases";
import { PgLeases } from "./pg-leases";
import { singleInstanceLeases } from "./single-instance";
import { listInstances, listLeases } from "./cluster.store";
import { kvSetIfAbsent } from "../db/kv";
import { NatsLink, offLink, type ClusterLink, type LinkHealth } from "./cluster-link";

export interface ClusterInstance {
  instance_id: string;
  host: string;
  pid: number;
  started_at: string;
  last_heartbeat_at: string;
  alive: boolean;
  /** The instance answering. */
  self: boolean;
}

export interface ClusterLease {
  name: string;
  /** The instance holding it now, or null when nobody does (expired, given back). */
  holder: string | null;
  token: number;
  expires_at: string | null;
}

export interface ClusterStatus {
  enabled: boolean;
  instance_id: string;
  lease_seconds: number;
  instances: ClusterInstance[];
  leases: ClusterLease[];
  /** The link to the other instances over NATS (state "off" when the cluster is). */
  events: LinkHealth;
}

export interface Cluster {
  readonly enabled: boolean;
  readonly instanceId: string;
  readonly leases: Leases;
  /** Events to and from the other instances (docs/cluster.md "Events"); one instance: a link to nobody. */
  readonly link: ClusterLink;
  status(): Promise<ClusterStatus>;
  stop(): Promise<void>;
}

export const defaultInstanceId = (): string => `${os.hostname()}-${process.pid}`;

export const SQLITE_REFUSED =
  "cluster.enabled needs PostgreSQL (DATABASE_URL=postgres://…): SQLite is one file on one machine, which other instances cannot share, so they could neither see the same household nor agree on who runs the timed work";

/** Refuses a cluster on SQLite, before anything starts. */
export function checkClusterStore(settings: { cluster: ClusterSettings }, dialect: "sqlite" | "postgres"): void {
  if (settings.cluster.enabled && dialect !== "postgres") throw new SettingsError(`Invalid settings: ${SQLITE_REFUSED}`);
}

// Jobs whose context has no cluster (tests building a bare context) run as one instance.
const alone = singleInstanceLeases(defaultInstanceId());

/** The leases a job runs under. */
export const leasesOf = (ctx: { cluster?: Pick<Cluster, "leases"> }): Leases => ctx.cluster?.leases ?? alone;

export interface ClusterStart {
  db: Knex;
  dialect: "sqlite" | "postgres";
  clock: Clock;
  log: Logger;
  settings: { cluster: ClusterSettings };
}

export async function startCluster(ctx: ClusterStart): Promise<Cluster> {
  const s = ctx.settings.cluster;
  checkClusterStore(ctx.settings, ctx.dialect);
  const instanceId = s.instance_id ?? defaultInstanceId();
  if (!s.enabled) {
    const leases = singleInstanceLeases(instanceId);
    const startedAt = isoAt(ctx.clock.now());
    return {
      enabled: false,
      instanceId,
      leases,
      link: offLink,
      status: async () => {
        const now = isoAt(ctx.clock.now());
        return {
          enabled: false,
          instance_id: instanceId,
          lease_seconds: s.lease_seconds,
          instances: [
            { instance_id: instanceId, host: os.hostname(), pid: process.pid, started_at: startedAt, last_heartbeat_at: now, alive: true, self: true },
          ],
          leases: leases.local().map((l) => ({ name: l.name, holder: instanceId, token: l.token ?? 1, expires_at: null })),
          events: offLink.health(),
        };
      },
      stop: () => leases.stop(),
    };
  }
  const leases = new PgLeases({ db: ctx.db, clock: ctx.clock, log: ctx.log.child({ component: "cluster" }), instanceId, leaseMs: s.lease_seconds * 1000 });
  await leases.start();
  // The subjects' prefix is the cluster's: every instance of this database finds the same one.
  const prefix = await kvSetIfAbsent(ctx.db, "cluster:subject-prefix", randomBytes(6).toString("hex"), isoAt(ctx.clock.now()));
  const link = new NatsLink({ url: s.nats_url, prefix, instanceId, clock: ctx.clock, log: ctx.log.child({ component: "cluster" }) });
  link.start();
  ctx.log.info({ instance_id: instanceId, lease_seconds: s.lease_seconds, nats_url: s.nats_url }, "cluster: joined");
  return {
    enabled: true,
    instanceId,
    leases,
    link,
    status: async () => {
      const now = ctx.clock.now();
      const [instances, rows] = await Promise.all([listInstances(ctx.db), listLeases(ctx.db)]);
      return {
        enabled: true,
        instance_id: instanceId,
        lease_seconds: s.lease_seconds,
        instances: instances.map((i) => ({
          instance_id: i.instance_id,
          host: i.host,
          pid: i.pid,
          started_at: isoAt(i.started_at),
          last_heartbeat_at: isoAt(i.heartbeat_at),
          alive: i.expires_at > now,
          self: i.instance_id === instanceId,
        })),
        leases: rows.map((l) => {
          const live = l.expires_at > now;
          return { name: l.name, holder: live ? l.holder : null, token: l.token, expires_at: live ? isoAt(l.expires_at) : null };
        }),
        events: link.health(),
      };
    },
    stop: async () => {
      await link.stop();
      await leases.stop();
    },
  };
}
