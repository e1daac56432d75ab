/**
 * `voice_turns` (care/surfaces/voice): what was said in each conversation with the voice companion,
 * one row per spoken turn (the senior's words as the model transcribed them, the companion's
 * as it spoke them), so `get_conversation_history` and a caregiver can read them later.
 * A conversation is a `session_id`; a prompt's conversation names the run and step it asked for.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("voice_turns", (t) => {
    t.increments("id").primary();
    t.string("session_id", 64).notNullable();
    t.string("role", 10).notNullable(); // user | assistant
    t.text("text").notNullable();
    t.string("at", 32).notNullable();
    t.string("reason", 20).notNullable(); // notification | prompt | senior | api
    t.integer("execution_id").nullable();
    t.integer("step_id").nullable();
    t.index(["session_id", "id"]);
    t.index(["at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("voice_turns");
}
