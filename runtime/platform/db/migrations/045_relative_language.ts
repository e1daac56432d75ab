/**
 * `chat_relatives.language` and `chat_link_codes.language` (issue 49): the language a relative
 * reads the family chat in (the bot's buttons, notes, answers and daily message), a BCP 47 tag;
 * null follows the household's `app.language`. A code carries it to the relative it links.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("chat_relatives", (t) => {
    t.string("language", 35).nullable();
  });
  await knex.schema.alterTable("chat_link_codes", (t) => {
    t.string("language", 35).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("chat_link_codes", (t) => {
    t.dropColumn("language");
  });
  await knex.schema.alterTable("chat_relatives", (t) => {
    t.dropColumn("language");
  });
}
