/**
 * `alert_history` (household/alerts): every send, delivery, failure, acknowledgement and edit
 * of an alert, timestamped to the second, per channel and target. A chat message's
 * `chat_id:message_id` is kept in `ref`, so an acknowledgement can edit it later.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("alert_history", (t) => {
    t.increments("id").primary();
    t.integer("alert_id").notNullable().references("id").inTable("alerts").onDelete("CASCADE");
    t.string("at", 32).notNullable();
    t.string("event", 30).notNullable();
    t.string("channel", 50).nullable();
    t.string("target", 200).nullable();
    t.integer("escalation").notNullable().defaultTo(0);
    t.text("detail").nullable();
    t.string("ref", 200).nullable();
    t.index(["alert_id", "id"]);
    t.index(["ref"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("alert_history");
}
