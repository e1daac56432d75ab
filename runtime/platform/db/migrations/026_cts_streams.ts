/**
 * The continuous-tracking streams (issue 26): which messages were applied (so a redelivery
 * after a restart or a kill -9 changes nothing twice), the messages that could not be decoded
 * or applied (dead letters, kept for a person to read), the recent frames the tracking window
 * reads, a signal's acknowledgment and alert state, and the history rows a revision rewrote.
 */
import type { Knex } from "knex";

const TS = 32;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("cts_applied", (t) => {
    t.string("stream", 60).notNullable();
    // event_id, revision_id, signal_id@severity, keyframe_id, or the stream sequence.
    t.string("msg_key", 200).notNullable();
    t.string("applied_at", TS).notNullable().index();
    t.primary(["stream", "msg_key"]);
  });
  await knex.schema.createTable("cts_dead_letters", (t) => {
    t.increments("id").primary();
    t.string("stream", 60).notNullable();
    t.string("subject", 200).notNullable();
    t.bigInteger("stream_seq").notNullable();
    t.integer("deliveries").notNullable().defaultTo(1);
    t.text("reason").notNullable();
    t.text("payload_base64").notNullable();
    t.string("received_at", TS).notNullable().index();
    t.unique(["stream", "stream_seq"]);
  });
  await knex.schema.createTable("cts_frames", (t) => {
    t.increments("id").primary();
    t.string("event_id", 200).nullable();
    t.string("camera_id", 100).notNullable();
    t.string("room_name", 100).nullable();
    t.string("event_time", TS).notNullable().index();
    t.text("detections_json").notNullable().defaultTo("[]");
  });
  await knex.schema.alterTable("dementia_signals", (t) => {
    t.string("acknowledged_by", 200).nullable();
    t.text("feedback").nullable();
    // none: nothing to fire; pending: committed, rules not yet fired; fired.
    t.string("alert_state", 10).notNullable().defaultTo("none").index();
    t.float("value").nullable();
    t.string("updated_at", TS).nullable();
  });
  await knex.schema.alterTable("person_location_history", (t) => {
    t.string("ph_id", 100).nullable().index();
    t.string("revision_id", 100).nullable();
    t.string("deleted_at", TS).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("person_location_history", (t) => {
    t.dropIndex(["ph_id"]);
    t.dropColumns("ph_id", "revision_id", "deleted_at");
  });
  await knex.schema.alterTable("dementia_signals", (t) => {
    t.dropIndex(["alert_state"]);
    t.dropColumns("acknowledged_by", "feedback", "alert_state", "value", "updated_at");
  });
  for (const table of ["cts_frames", "cts_dead_letters", "cts_applied"]) await knex.schema.dropTableIfExists(table);
}
