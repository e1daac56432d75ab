/**
 * `occupancy_presence` and `occupancy_fires`, owned here (migration 033): what the occupancy
 * timers of several instances share. PostgreSQL only (a cluster is refused on SQLite); times
 * are the app clock's epoch milliseconds, bigint read back with Number.
 */
import type { Knex } from "knex";
import { deleteBefore } from "../../../../platform/db/delete-before";

export interface PresenceRow {
  sensor_id: string;
  occupied: boolean;
  /** When the sensor became occupied (or free). */
  at: number;
}

/**
 * Records a change of state: only a change (a repeated "occupied" keeps the period's start) and
 * only a newer one (events of one sensor may reach two instances out of order).
 */
export async function recordPresence(db: Knex, row: PresenceRow): Promise<void> {
  await db.raw(
    `insert into occupancy_presence (sensor_id, occupied, at) values (?, ?, ?)
     on conflict (sensor_id) do update set occupied = excluded.occupied, at = excluded.at
     where occupancy_presence.occupied <> excluded.occupied and occupancy_presence.at <= excluded.at`,
    [row.sensor_id, row.occupied, row.at],
  );
}

const fromDb = (r: Record<string, unknown>): PresenceRow => ({ sensor_id: String(r.sensor_id), occupied: Boolean(r.occupied), at: Number(r.at) });

export async function presenceStates(db: Knex): Promise<PresenceRow[]> {
  return (await db("occupancy_presence").select("sensor_id", "occupied", "at")).map(fromDb);
}

export async function presenceOf(db: Knex, sensorId: string): Promise<PresenceRow | null> {
  const row = await db("occupancy_presence").where({ sensor_id: sensorId }).first();
  return row ? fromDb(row) : null;
}

/** Claims the firing of a rule for the period that began at `since`; false when it was fired already. */
export async function claimOccupancyFire(db: Knex, ruleId: number, sensorId: string, since: number, nowMs: number): Promise<boolean> {
  const rows = await db("occupancy_fires")
    .insert({ rule_id: ruleId, sensor_id: sensorId, since, fired_at: nowMs })
    .onConflict(["rule_id", "sensor_id", "since"])
    .ignore()
    .returning("rule_id");
  return rows.length === 1;
}

export async function deleteFiresBefore(db: Knex, beforeMs: number, signal?: AbortSignal): Promise<number> {
  return deleteBefore(db, "occupancy_fires", "fired_at", beforeMs, { signal });
}
