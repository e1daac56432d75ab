/**
 * `ingest_batches` (household/devices/aggregator.ts): one row per camera batch the
 * aggregator opened, so a batch open when the process died is found again at start and
 * flushed by the recorded rule (docs/decisions.md), never fired twice: a flush claims the
 * row (`open` → `flushed`) before the batch's rules fire.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("ingest_batches", (t) => {
    t.increments("id").primary();
    t.string("sensor_id", 100).notNullable();
    t.string("room_name", 200).nullable();
    t.string("state", 20).notNullable(); // open | flushed | discarded
    t.string("opened_at", 40).notNullable();
    t.string("due_at", 40).notNullable();
    t.string("closed_at", 40).nullable();
    t.text("media_ids_json").notNullable();
    t.text("media_paths_json").notNullable();
    t.string("close_reason", 40).nullable();
    t.index(["state"]);
    t.index(["sensor_id", "closed_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("ingest_batches");
}
