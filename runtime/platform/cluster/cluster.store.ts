/**
 * The owner of `cluster_leases` and `cluster_instances` (PostgreSQL only: a cluster is refused
 * on SQLite). Times are the app clock's epoch milliseconds; PostgreSQL's bigint comes back as a
 * string and is read with Number (milliseconds and tokens stay far below 2^53).
 */
import type { Knex } from "knex";

export interface LeaseRow {
  name: string;
  holder: string;
  token: number;
  acquired_at: number;
  expires_at: number;
}

export interface InstanceRow {
  instance_id: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  expires_at: number;
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * Takes the lease when it is free, expired, or already this holder's (after a local loss): the
 * token grows by one. Two instances racing for it serialise on the row; only one gets a row back.
 * Returns the new token, or null when another instance holds it.
 */
export async function tryAcquire(db: Knex, name: string, holder: string, nowMs: number, expiresMs: number): Promise<number | null> {
  const rows = rowsOf<{ token: string }>(
    await db.raw(
      `insert into cluster_leases (name, holder, token, acquired_at, expires_at) values (?, ?, 1, ?, ?)
       on conflict (name) do update set holder = excluded.holder, token = cluster_leases.token + 1,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
       where cluster_leases.expires_at <= ? or cluster_leases.holder = excluded.holder
       returning token`,
      [name, holder, nowMs, expiresMs, nowMs],
    ),
  );
  return rows.length ? Number(rows[0].token) : null;
}

/** Extends the leases this holder still holds with these tokens; returns the names renewed. */
export async function renew(
  db: Knex,
  holder: string,
  held: ReadonlyArray<{ name: string; token: number }>,
  nowMs: number,
  expiresMs: number,
): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const pairs = held.map(() => "(?, ?::bigint)").join(", ");
  const rows = rowsOf<{ name: string }>(
    await db.raw(
      `update cluster_leases set expires_at = ? from (values ${pairs}) as mine(name, token)
       where cluster_leases.name = mine.name and cluster_leases.token = mine.token
         and cluster_leases.holder = ? and cluster_leases.expires_at > ?
       returning cluster_leases.name`,
      [expiresMs, ...held.flatMap((h) => [h.name, h.token]), holder, nowMs],
    ),
  );
  return new Set(rows.map((r) => r.name));
}

/** Gives a lease back at once (the token stays, so the next holder's is larger). */
export async function release(db: Knex, name: string, holder: string, token: number): Promise<void> {
  await db("cluster_leases").where({ name, holder, token }).update({ expires_at: 0 });
}

export async function listLeases(db: Knex): Promise<LeaseRow[]> {
  const rows = await db("cluster_leases").select("name", "holder", "token", "acquired_at", "expires_at").orderBy("name");
  return rows.map((r: Record<string, unknown>) => ({
    name: String(r.name),
    holder: String(r.holder),
    token: Number(r.token),
    acquired_at: Number(r.acquired_at),
    expires_at: Number(r.expires_at),
  }));
}

/** Registers this instance or records its heartbeat. */
export async function heartbeat(db: Knex, row: InstanceRow): Promise<void> {
  await db("cluster_instances").insert(row).onConflict("instance_id").merge(["heartbeat_at", "expires_at", "host", "pid"]);
}

export async function listInstances(db: Knex): Promise<InstanceRow[]> {
  const rows = await db("cluster_instances").select("*").orderBy("instance_id");
  return rows.map((r: Record<string, unknown>) => ({
    instance_id: String(r.instance_id),
    host: String(r.host),
    pid: Number(r.pid),
    started_at: Number(r.started_at),
    heartbeat_at: Number(r.heartbeat_at),
    expires_at: Number(r.expires_at),
  }));
}

/** An instance that stops cleanly leaves the list; ones silent since `beforeMs` are forgotten. */
export async function removeInstance(db: Knex, instanceId: string): Promise<void> {
  await db("cluster_instances").where({ instance_id: instanceId }).delete();
}

export async function forgetSilentInstances(db: Knex, beforeMs: number): Promise<number> {
  return db("cluster_instances").where("expires_at", "<", beforeMs).delete();
}

/** Is the instance in the list with a heartbeat not yet expired at `nowMs`? */
export async function instanceAlive(db: Knex, instanceId: string, nowMs: number): Promise<boolean> {
  const row = await db("cluster_instances").where({ instance_id: instanceId }).where("expires_at", ">", nowMs).first("instance_id");
  return row !== undefined;
}
