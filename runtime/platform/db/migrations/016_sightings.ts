/**
 * `sightings` (household/tracking): one row per face a camera placed, a member or a visitor
 * (`visitor-3`), as identification published it. The location state and its history gain
 * the presence segment's quality: the mean confidence of the evidence that kept the person
 * in the room (`mean_quality` over `quality_samples`), computed by the server, never given.
 */
import type { Knex } from "knex";

const TS = 32;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("sightings", (t) => {
    t.increments("id").primary();
    t.string("person_id", 64).notNullable();
    t.string("person_name", 200).nullable();
    t.boolean("visitor").notNullable().defaultTo(false);
    t.string("sensor_id", 200).notNullable();
    t.string("room_name", 100).nullable();
    t.float("confidence").notNullable().defaultTo(0);
    t.text("bbox_json").notNullable().defaultTo("[]");
    t.string("media_path", 500).nullable();
    t.string("direction_raw", 30).nullable();
    t.string("direction_semantic", 30).nullable();
    t.string("timestamp", TS).notNullable();
    t.index(["person_id", "timestamp"]);
  });
  for (const table of ["person_locations", "person_location_history"]) {
    await knex.schema.alterTable(table, (t) => {
      t.float("mean_quality").nullable();
      t.integer("quality_samples").notNullable().defaultTo(0);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["person_locations", "person_location_history"]) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn("mean_quality");
      t.dropColumn("quality_samples");
    });
  }
  await knex.schema.dropTable("sightings");
}
