/**
 * `input_journal` (care/core/journal): every input that can fire or feed a rule, in the order it
 * arrived, with its time (the app clock's) and its bus payload as JSON text, so a rule can later
 * be rehearsed on a recorded day (issue 27). `sensor_id` is copied out of the payload for the
 * questions a rehearsal asks ("what did the kitchen camera send last night").
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("input_journal", (t) => {
    t.increments("id").primary();
    t.string("at", 32).notNullable();
    t.string("topic", 40).notNullable();
    t.string("sensor_id", 100).nullable();
    t.text("payload").notNullable();
    t.index(["at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("input_journal");
}
