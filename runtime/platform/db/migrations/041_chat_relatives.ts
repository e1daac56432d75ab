/**
 * `chat_relatives` (issue 43 §1, Family chat): the family's chats added or changed on the
 * Household page, beside the settings file's `notifications.chat_app.targets`. One row per chat
 * id; a row for a chat the settings file also lists is that chat's levels as changed on the
 * page (the page's word wins). `chat_link_codes`: the one-time codes a relative sends to the bot
 * (`/start CODE`) to join; only a code's SHA-256 digest is kept, `used_at` makes it single-use
 * across instances (one conditional update wins), `expires_at` ends it.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("chat_relatives", (t) => {
    t.increments("id").primary();
    t.string("chat_id", 64).notNullable().unique();
    t.string("name", 100).notNullable();
    t.text("alert_levels").notNullable(); // JSON list; empty = every level
    t.string("added_by", 200).notNullable();
    t.string("added_at", 32).notNullable();
    t.string("updated_at", 32).notNullable();
  });
  await knex.schema.createTable("chat_link_codes", (t) => {
    t.increments("id").primary();
    t.string("digest", 64).notNullable().unique(); // hex SHA-256 of the code
    t.string("name", 100).notNullable();
    t.text("alert_levels").notNullable();
    t.string("created_by", 200).notNullable();
    t.string("created_at", 32).notNullable();
    t.string("expires_at", 32).notNullable().index();
    t.string("used_at", 32).nullable();
    t.string("used_chat_id", 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("chat_link_codes");
  await knex.schema.dropTableIfExists("chat_relatives");
}
