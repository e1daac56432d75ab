/**
 * The `managed_keys` table (migration 040): keys made while the service runs. Only a key's
 * SHA-256 digest is stored; a presented key is found by its digest with one indexed read, so a
 * key made, rotated or revoked through any instance is seen by every instance at its next
 * request, with nothing cached here.
 */
import type { Knex } from "knex";

export interface ManagedKeyRow {
  id: number;
  name: string;
  kind: "api" | "device";
  role: string | null;
  device_type: string | null;
  sensor_id: string | null;
  created_by: string;
  created_at: string;
  rotated_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What a new key's row holds besides its digest. */
export type NewManagedKey = Pick<ManagedKeyRow, "name" | "kind" | "role" | "device_type" | "sensor_id" | "created_by" | "created_at">;

const COLUMNS = ["id", "name", "kind", "role", "device_type", "sensor_id", "created_by", "created_at", "rotated_at", "last_used_at", "revoked_at"] as const;

/** SQLite answers ids as numbers, PostgreSQL too for `increments`; kept a number either way. */
const asRow = (r: ManagedKeyRow): ManagedKeyRow => ({ ...r, id: Number(r.id) });

/** The active key with this digest (hex SHA-256), if any. */
export async function managedKeyByDigest(db: Knex, digest: string): Promise<ManagedKeyRow | undefined> {
  const row = await db<ManagedKeyRow>("managed_keys")
    .where("digest", digest)
    .first(...COLUMNS);
  return row ? asRow(row) : undefined;
}

export async function managedKeyById(db: Knex, id: number): Promise<ManagedKeyRow | undefined> {
  const row = await db<ManagedKeyRow>("managed_keys")
    .where({ id })
    .first(...COLUMNS);
  return row ? asRow(row) : undefined;
}

/** Every managed key, revoked ones too, oldest first. */
export async function listManagedKeys(db: Knex): Promise<ManagedKeyRow[]> {
  const rows = await db<ManagedKeyRow>("managed_keys")
    .select(...COLUMNS)
    .orderBy("id");
  return rows.map(asRow);
}

/** The active key whose name has this key (core/name-key.ts), if any. */
export async function activeManagedKeyNamed(db: Knex, nameKey: string): Promise<ManagedKeyRow | undefined> {
  const row = await db<ManagedKeyRow>("managed_keys")
    .where("name_key", nameKey)
    .first(...COLUMNS);
  return row ? asRow(row) : undefined;
}

export async function insertManagedKey(db: Knex, key: NewManagedKey, nameKey: string, digest: string): Promise<number> {
  const [inserted] = await db("managed_keys").insert({ ...key, name_key: nameKey, digest }, ["id"]);
  return Number(typeof inserted === "object" ? (inserted as { id: number }).id : inserted);
}

/** Replaces an active key's digest: the old key matches nothing from now on. False when not active. */
export async function replaceDigest(db: Knex, id: number, digest: string, at: string): Promise<boolean> {
  const n = await db("managed_keys").where({ id }).whereNull("revoked_at").update({ digest, rotated_at: at });
  return n > 0;
}

/** Revokes an active key: its digest and name are cleared. False when there is none active with this id. */
export async function revokeManagedKey(db: Knex, id: number, at: string): Promise<boolean> {
  const n = await db("managed_keys").where({ id }).whereNull("revoked_at").update({ digest: null, name_key: null, revoked_at: at });
  return n > 0;
}

/** Notes a use, unless one was noted after `notBefore` (another instance may have): at most one write a minute. */
export async function touchManagedKey(db: Knex, id: number, at: string, notBefore: string): Promise<void> {
  await db("managed_keys")
    .where({ id })
    .where((q) => q.whereNull("last_used_at").orWhere("last_used_at", "<", notBefore))
    .update({ last_used_at: at });
}

/** An active device key of this sensor, if any (a sensor is not deleted from under its device's key). */
export async function activeManagedKeyOfSensor(db: Knex, sensorId: string): Promise<ManagedKeyRow | undefined> {
  const row = await db<ManagedKeyRow>("managed_keys")
    .where({ sensor_id: sensorId })
    .whereNull("revoked_at")
    .first(...COLUMNS);
  return row ? asRow(row) : undefined;
}
