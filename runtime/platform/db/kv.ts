/** Small named values kept in the store (Node-RED credentials, secrets, markers). */
import type { Knex } from "knex";

export async function kvGet(db: Knex, key: string): Promise<string | undefined> {
  const row = await db("kv").where({ key }).first();
  return row?.value;
}

export async function kvSet(db: Knex, key: string, value: string, nowIso: string): Promise<void> {
  await db("kv").insert({ key, value, updated_at: nowIso }).onConflict("key").merge();
}
