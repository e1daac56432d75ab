/**
 * `media_objects` (household/media/pg-objects.ts, issue 28): the media store's bytes when
 * several instances share the database (`cluster.enabled`): camera frames, speech clips, card
 * and e-ink images, by their object name (the path a single box keeps them at under its data
 * dir). `modified_ms` is the app clock's epoch milliseconds of the last put. Unused (empty)
 * on one instance, where the bytes stay files.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("media_objects", (t) => {
    t.string("name", 300).primary();
    t.binary("bytes").notNullable();
    t.bigInteger("byte_size").notNullable();
    t.bigInteger("modified_ms").notNullable();
  });
  // Frames are JPEG, clips MP3: already compressed, so PostgreSQL stores them as they are.
  if (knex.client.config.client === "pg") await knex.raw("alter table media_objects alter column bytes set storage external");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("media_objects");
}
