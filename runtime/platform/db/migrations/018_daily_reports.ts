/**
 * `daily_reports` (care/services/reports): a member's report of one local day (`app.timezone` when it
 * was built), stored once the day is over, as JSON text. One row per person and day: the
 * midnight job, a catch-up at start and a request for a past day race on the unique key,
 * and the first one stays.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("daily_reports", (t) => {
    t.increments("id").primary();
    t.string("person_id", 64).notNullable();
    t.string("report_date", 10).notNullable(); // YYYY-MM-DD, local
    t.string("timezone", 100).notNullable();
    t.text("report_json").notNullable();
    t.string("generated_at", 40).notNullable();
    t.unique(["person_id", "report_date"]);
    t.index(["report_date"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable("daily_reports");
}
