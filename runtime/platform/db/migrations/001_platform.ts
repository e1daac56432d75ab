/** Rooms, sensors, persons, alerts, activities, event logs, and key/value state. */
import type { Knex } from "knex";

// Timestamps are ISO-8601 UTC strings of fixed width, so they sort and compare the same
// way as text on SQLite and PostgreSQL.
const TS = 32;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("rooms", (t) => {
    t.increments("id").primary();
    t.string("name", 100).notNullable().unique();
    t.string("ha_area_id", 200).nullable();
    t.string("floor", 100).nullable();
    t.string("created_at", TS).notNullable();
    t.string("updated_at", TS).notNullable();
  });
  await knex.schema.createTable("sensors", (t) => {
    t.increments("id").primary();
    t.string("sensor_id", 200).notNullable().unique();
    t.string("name", 200).notNullable();
    t.string("sensor_type", 20).notNullable().index();
    t.integer("room_id").nullable().references("id").inTable("rooms").onDelete("RESTRICT").index();
    t.string("source", 50).notNullable().defaultTo("manual").index();
    t.boolean("enabled").notNullable().defaultTo(true);
    t.text("config_json").notNullable().defaultTo("{}");
    t.string("created_at", TS).notNullable();
    t.string("updated_at", TS).notNullable();
  });
  await knex.schema.createTable("persons", (t) => {
    t.string("person_id", 64).primary();
    t.string("display_name", 200).notNullable();
    t.text("notes").nullable();
    t.boolean("enrolled").notNullable().defaultTo(false);
    t.integer("embedding_count").notNullable().defaultTo(0);
    t.string("enrolled_at", TS).nullable();
    t.text("cts_alert_config").nullable();
    t.string("created_at", TS).notNullable();
    t.string("updated_at", TS).notNullable();
  });
  await knex.schema.createTable("alerts", (t) => {
    t.increments("id").primary();
    t.string("timestamp", TS).notNullable().index();
    t.string("alert_type", 100).notNullable().index();
    t.string("level", 20).notNullable().defaultTo("warning");
    t.text("description").notNullable().defaultTo("");
    t.string("room_name", 100).nullable().index();
    t.string("sensor_id", 200).nullable();
    t.integer("rule_id").nullable();
    t.integer("execution_id").nullable();
    t.text("image_url").nullable();
    t.boolean("resolved").notNullable().defaultTo(false).index();
    t.string("resolved_at", TS).nullable();
    t.string("resolved_by", 200).nullable();
    t.boolean("assistance_needed").notNullable().defaultTo(false);
    t.string("assisted_at", TS).nullable();
    t.integer("escalation_count").notNullable().defaultTo(0);
    t.string("next_escalation_at", TS).nullable().index();
  });
  await knex.schema.createTable("alert_actions", (t) => {
    t.increments("id").primary();
    t.integer("alert_id").notNullable().references("id").inTable("alerts").onDelete("CASCADE").index();
    t.string("action", 20).notNullable();
    t.string("actor", 200).notNullable();
    t.text("note").nullable();
    t.string("created_at", TS).notNullable();
  });
  await knex.schema.createTable("person_activities", (t) => {
    t.increments("id").primary();
    t.string("timestamp", TS).notNullable().index();
    t.string("activity_type", 100).notNullable().index();
    t.string("person_id", 64).nullable().index();
    t.string("room_name", 100).nullable();
    t.float("confidence").notNullable().defaultTo(0.8);
    t.text("metadata_json").notNullable().defaultTo("{}");
    t.integer("rule_id").nullable();
    t.integer("execution_id").nullable();
  });
  await knex.schema.createTable("event_logs", (t) => {
    t.increments("id").primary();
    t.string("timestamp", TS).notNullable().index();
    t.integer("rule_id").nullable().index();
    t.string("rule_name", 200).nullable().index();
    t.string("room_name", 100).nullable();
    t.string("sensor_id", 200).nullable();
    t.string("status", 20).notNullable().index();
    t.string("trigger_type", 30).nullable();
    t.integer("execution_id").nullable();
    t.text("pipeline_data_json").notNullable().defaultTo("{}");
    t.text("details").nullable();
  });
  await knex.schema.createTable("kv", (t) => {
    t.string("key", 200).primary();
    t.text("value").notNullable();
    t.string("updated_at", TS).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["kv", "event_logs", "person_activities", "alert_actions", "alerts", "persons", "sensors", "rooms"]) {
    await knex.schema.dropTableIfExists(table);
  }
}
