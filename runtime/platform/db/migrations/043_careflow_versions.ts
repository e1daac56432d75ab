/**
 * `careflow_versions`: each careflow version that started on this store, with the schema it
 * left, so an older careflow refused at start can name the newer one (runtime/platform/db/schema-upgrade.ts).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("careflow_versions", (t) => {
    t.increments("id").primary();
    t.string("version", 64).notNullable();
    t.string("schema", 100).notNullable();
    t.string("at", 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("careflow_versions");
}
