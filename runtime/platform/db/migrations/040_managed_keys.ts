/**
 * `managed_keys` (issue 43): API and device keys made through `POST /api/v1/admin/keys` while
 * the service runs, beside the settings file's. Only the key's SHA-256 digest is kept, unique,
 * so any instance finds a presented key with one indexed read. A revoked key keeps its row
 * (the list shows it) with `digest` and `name_key` emptied: it matches nothing, and its name
 * may be given to a new key. `audit_log`: who (a key's name) created, changed or deleted what.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("managed_keys", (t) => {
    t.increments("id").primary();
    t.string("name", 100).notNullable();
    t.string("name_key", 400).nullable().unique(); // null once revoked: the name is free again
    t.string("kind", 16).notNullable(); // api | device
    t.string("role", 32).nullable();
    t.string("device_type", 32).nullable();
    t.string("sensor_id", 200).nullable();
    t.string("digest", 64).nullable().unique(); // hex SHA-256; null once revoked
    t.string("created_by", 200).notNullable();
    t.string("created_at", 32).notNullable();
    t.string("rotated_at", 32).nullable();
    t.string("last_used_at", 32).nullable();
    t.string("revoked_at", 32).nullable();
  });
  await knex.schema.createTable("audit_log", (t) => {
    t.increments("id").primary();
    t.string("at", 32).notNullable().index();
    t.string("actor", 200).notNullable(); // the key's name
    t.string("action", 32).notNullable(); // create | update | delete | rotate | revoke
    t.string("target_type", 32).notNullable(); // key | person | room | rule | ...
    t.string("target_id", 200).nullable();
    t.string("target_name", 300).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("audit_log");
  await knex.schema.dropTableIfExists("managed_keys");
}
