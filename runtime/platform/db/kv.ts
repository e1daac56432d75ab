/** Small named values kept in the store (Node-RED credentials, secrets, markers). */
import type { Knex } from "knex";

export async function kvGet(db: Knex, key: string): Promise<string | undefined> {
  const row = await db("kv").where({ key }).first();
  return row?.value;
}

export async function kvSet(db: Knex, key: string, value: string, nowIso: string): Promise<void> {
  await db("kv").insert({ key, value, updated_at: nowIso }).onConflict("key").merge();
}

/**
 * Stores `value` unless the key already holds one, and returns what the key holds then: two
 * processes generating a secret at once end up with the same one.
 */
export async function kvSetIfAbsent(db: Knex, key: string, value: string, nowIso: string): Promise<string> {
  await db("kv").insert({ key, value, updated_at: nowIso }).onConflict("key").ignore();
  return (await kvGet(db, key)) ?? value;
}

export async function kvDelete(db: Knex, key: string): Promise<void> {
  await db("kv").where({ key }).delete();
}

export interface KvRow {
  key: string;
  value: string;
  updated_at: string;
}

/** Every row but `except` (a backup leaves the secrets out), by key. */
export async function kvRowsExcept(db: Knex, except: readonly string[]): Promise<KvRow[]> {
  return db("kv")
    .whereNotIn("key", [...except])
    .select("key", "value", "updated_at")
    .orderBy("key");
}

/** Writes a row as it was kept (a restore), its time included. */
export async function kvPut(db: Knex, row: KvRow): Promise<void> {
  await db("kv").insert(row).onConflict("key").merge();
}

/** When the key was last written (undefined: never). */
export async function kvUpdatedAt(db: Knex, key: string): Promise<string | undefined> {
  const row: { updated_at: string } | undefined = await db("kv").where({ key }).first("updated_at");
  return row?.updated_at;
}
