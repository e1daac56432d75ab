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
