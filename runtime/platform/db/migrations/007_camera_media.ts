/**
 * Camera images kept for models: one row per stored frame, filled by the camera capability
 * and read by `llm_call` for its additional images (by sensor or room, newest per sensor).
 * `path` is relative to the data directory (or absolute); `captured_at` is ISO-8601 UTC,
 * like every stored time, so text order is time order on both stores.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("camera_media", (t) => {
    t.increments("id").primary();
    t.string("sensor_id", 100).notNullable();
    t.string("room_name", 200).nullable().index();
    t.text("path").notNullable();
    t.string("captured_at", 32).notNullable().index();
    t.index(["sensor_id", "captured_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("camera_media");
}
