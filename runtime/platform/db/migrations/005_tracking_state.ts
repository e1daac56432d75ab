/**
 * Where people are and what the house is telling us: each person's current location and
 * its history, room transitions from camera motion, room-level object trends, and dementia
 * signals. Tracking capabilities fill these; filters and steps read them (runtime/tracking).
 *
 * No foreign key to `persons`: tracking may report identities that are not (yet) household
 * members, and a sighting must never be lost to a missing person row.
 */
import type { Knex } from "knex";

const TS = 32; // ISO-8601 UTC strings of fixed width, as in 001_platform
const PERSON_ID = 64;
const ROOM_ID = 64;
const ROOM_NAME = 100;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("person_locations", (t) => {
    t.string("person_id", PERSON_ID).primary();
    // Both null: the person was seen leaving the home (away), not "somewhere unknown".
    t.string("room_id", ROOM_ID).nullable();
    t.string("room_name", ROOM_NAME).nullable();
    t.string("source", 20).notNullable(); // camera | hub_sensor | cts
    t.float("confidence").notNullable().defaultTo(1);
    t.string("updated_at", TS).notNullable().index();
  });
  await knex.schema.createTable("person_location_history", (t) => {
    t.increments("id").primary();
    t.string("person_id", PERSON_ID).notNullable();
    t.string("room_id", ROOM_ID).nullable();
    t.string("room_name", ROOM_NAME).nullable();
    t.string("source", 20).notNullable();
    t.float("confidence").notNullable().defaultTo(1);
    // Set when the change was derived from a room transition (entering, exiting, ...).
    t.string("direction_semantic", 30).nullable();
    t.string("timestamp", TS).notNullable();
    t.index(["person_id", "timestamp"]);
  });
  await knex.schema.createTable("room_transitions", (t) => {
    t.increments("id").primary();
    t.string("person_id", PERSON_ID).notNullable();
    t.string("person_name", 200).nullable();
    t.string("sensor_id", 200).nullable();
    t.string("direction_raw", 30).nullable();
    t.string("semantic", 30).nullable();
    t.string("from_room_id", ROOM_ID).nullable();
    t.string("from_room_name", ROOM_NAME).nullable();
    t.string("to_room_id", ROOM_ID).nullable();
    t.string("to_room_name", ROOM_NAME).nullable();
    t.float("confidence").notNullable().defaultTo(0);
    t.string("timestamp", TS).notNullable();
    t.index(["person_id", "timestamp"]);
  });
  await knex.schema.createTable("room_trends", (t) => {
    // Semantic memory's room ids are strings ("kitchen"), not rooms.id.
    t.string("room_id", ROOM_ID).primary();
    t.string("room_name", ROOM_NAME).nullable();
    t.string("overall_severity", 10).notNullable().defaultTo("ok"); // ok | info | warning | critical
    t.float("clutter_score").nullable();
    t.string("trend_direction", 20).nullable();
    t.string("updated_at", TS).notNullable();
  });
  await knex.schema.createTable("dementia_signals", (t) => {
    t.increments("id").primary();
    // The tracking service's id: a re-sent signal updates its row instead of adding one.
    t.string("signal_id", 100).notNullable().unique();
    t.string("person_id", PERSON_ID).notNullable().index();
    t.string("kind", 40).notNullable();
    t.string("severity", 20).notNullable(); // info | warning | emergency
    t.text("details_json").notNullable().defaultTo("{}");
    t.string("started_at", TS).nullable();
    t.string("acknowledged_at", TS).nullable().index();
    t.string("created_at", TS).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ["dementia_signals", "room_trends", "room_transitions", "person_location_history", "person_locations"]) {
    await knex.schema.dropTableIfExists(table);
  }
}
