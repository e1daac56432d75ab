/**
 * `persons.language` (issue 49): the language a person reads and hears, a BCP 47 tag; null
 * follows the household's `app.language`. The senior's screens follow hers.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("persons", (t) => {
    t.string("language", 35).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("persons", (t) => {
    t.dropColumn("language");
  });
}
