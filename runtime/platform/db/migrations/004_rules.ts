/**
 * Stable integer ids for what lives in the flows: a rule is a flow tab, its steps and
 * contexts are the tab's nodes. These tables map ids to node ids (and keep step order);
 * the rule's content stays in the flow rows. Dependencies and the webhook secret are rule
 * metadata that is not part of a flow.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("rules", (t) => {
    t.increments("id").primary();
    t.string("tab_id", 64).notNullable().unique();
    t.string("webhook_secret", 200).nullable();
    t.string("webhook_secret_created_at", 32).nullable();
    t.string("created_at", 32).notNullable();
    t.string("updated_at", 32).notNullable();
  });
  await knex.schema.createTable("rule_steps", (t) => {
    t.increments("id").primary();
    t.integer("rule_id").notNullable().references("id").inTable("rules").onDelete("CASCADE").index();
    t.string("node_id", 64).notNullable().unique();
    t.integer("order").notNullable();
  });
  await knex.schema.createTable("rule_contexts", (t) => {
    t.increments("id").primary();
    t.integer("rule_id").notNullable().references("id").inTable("rules").onDelete("CASCADE").index();
    t.string("node_id", 64).notNullable().unique();
  });
  await knex.schema.createTable("rule_dependencies", (t) => {
    t.increments("id").primary();
    t.integer("rule_id").notNullable().references("id").inTable("rules").onDelete("CASCADE").index();
    t.integer("depends_on_rule_id").notNullable().references("id").inTable("rules").onDelete("CASCADE");
    t.float("lookback_minutes").notNullable().defaultTo(30);
    t.boolean("require_success").notNullable().defaultTo(true);
    t.string("created_at", 32).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["rule_dependencies", "rule_contexts", "rule_steps", "rules"]) await knex.schema.dropTableIfExists(table);
}
