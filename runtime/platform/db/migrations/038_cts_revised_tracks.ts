/**
 * `cts_revised_tracks` (issue 26): the identity the latest revision gave each track, kept ten
 * minutes (household/cts/recent-revisions.ts). An event of that track captured before the
 * revision but delivered after it is placed under the revised identity; kept in the store, a
 * restart or another instance taking the streams over still knows it. Times are the app
 * clock's epoch milliseconds.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("cts_revised_tracks", (t) => {
    t.string("ph_id", 200).primary();
    t.string("identity_id", 100).nullable(); // null: the track is nobody known
    t.bigInteger("revised_ms").notNullable(); // events captured up to then take identity_id
    t.bigInteger("recorded_ms").notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("cts_revised_tracks");
}
