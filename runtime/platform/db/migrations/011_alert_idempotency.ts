/**
 * An alert raised by a notification step carries the step activation's idempotency key
 * (`run:step:activation`), unique: the same step raising it again (after a restart, say)
 * finds the alert it raised instead of making a second one that escalates on its own.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.string("idempotency_key", 200).nullable().unique();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.dropUnique(["idempotency_key"]);
    t.dropColumn("idempotency_key");
  });
}
