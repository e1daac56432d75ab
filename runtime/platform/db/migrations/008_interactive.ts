/**
 * Interactive prompts: one row per prompt a run put to the senior (execution and step).
 * The row is written before the prompt is broadcast, so any answer can be checked against
 * it; the first answer (or the timeout) fills `answered_at`, `channel` and `action`, and
 * later answers are only acknowledged.
 */
import type { Knex } from "knex";

const TS = 32; // ISO-8601 UTC strings of fixed width, as in 001_platform

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("interactive_prompts", (t) => {
    t.increments("id").primary();
    t.integer("execution_id").notNullable();
    t.integer("step_id").notNullable();
    t.integer("rule_id").notNullable();
    t.text("message").notNullable().defaultTo("");
    // What the answer and the timeout paths need without reading the run's graph again.
    t.string("output_key", 200).notNullable();
    t.string("timeout_action", 10).notNullable();
    t.boolean("auto_escalate").notNullable().defaultTo(false);
    t.string("expires_at", TS).notNullable();
    t.string("created_at", TS).notNullable();
    t.string("answered_at", TS).nullable();
    t.string("channel", 20).nullable(); // pwa_popup_text | pwa_realtime_ai | timeout
    t.string("action", 10).nullable(); // escalate | dismiss
    t.unique(["execution_id", "step_id"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("interactive_prompts");
}
