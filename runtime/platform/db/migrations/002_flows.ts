/**
 * Node-RED's flows, one row per tab, node or config node, so a rule (a tab) and its
 * steps (the tab's nodes) can be read and written as rows. `position` keeps the order
 * Node-RED gave them.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("flow_nodes", (t) => {
    t.string("id", 64).primary();
    t.string("z", 64).nullable().index();
    t.string("type", 100).notNullable().index();
    t.integer("position").notNullable();
    t.text("json").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("flow_nodes");
}
