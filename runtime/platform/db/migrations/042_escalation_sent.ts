/**
 * `alerts.escalation_sent`: the last repetition whose send finished (its receipts recorded).
 * `escalation_count` is taken by the claim before the send, so a stop between the two
 * (kill -9, a lost lease) left a repetition counted but never sent; a repetition counted and
 * not sent is now sent on the next start (runtime/care/services/notify/escalation.ts). Existing alerts
 * count as sent: an upgrade re-sends nothing.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.integer("escalation_sent").notNullable().defaultTo(0);
  });
  await knex("alerts").update({ escalation_sent: knex.ref("escalation_count") });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.dropColumn("escalation_sent");
  });
}
