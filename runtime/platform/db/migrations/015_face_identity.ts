/**
 * Face identity (household/identity): the descriptors of enrolled people and of visitors
 * (unknown faces given a stable id), and the visitors themselves. Descriptors are 128
 * numbers kept as JSON text, so SQLite and PostgreSQL hold them alike.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("face_visitors", (t) => {
    t.string("visitor_id", 40).primary(); // visitor-<number>
    t.integer("number").notNullable().unique();
    t.integer("sighting_count").notNullable().defaultTo(0);
    t.string("first_seen_at", 40).notNullable();
    t.string("last_seen_at", 40).notNullable();
    t.string("last_sensor_id", 100).nullable();
  });
  await knex.schema.createTable("face_descriptors", (t) => {
    t.increments("id").primary();
    // Exactly one of the two: a person's enrollment, or a visitor's sightings.
    t.string("person_id", 64).nullable();
    t.string("visitor_id", 40).nullable();
    t.text("descriptor_json").notNullable();
    t.string("source", 200).nullable(); // the photo's file name, or the frame's media path
    t.string("created_at", 40).notNullable();
    t.index(["person_id"]);
    t.index(["visitor_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("face_descriptors");
  await knex.schema.dropTable("face_visitors");
}
