/**
 * `alerts.escalation_claimed_by`: the instance that claimed the last repetition (null once it
 * gave the claim back, a send cut short). With several instances a new `escalation` lease
 * holder sends again a claimed, unfinished repetition only when its claimant is gone or gave it
 * back: the old holder may be alive and still sending it (its lease ran out under load), and
 * sending it twice is what this column prevents (runtime/care/services/notify/escalation.ts).
 * Existing alerts have no claimant: one cut short before the upgrade is sent again, as before.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.string("escalation_claimed_by", 200).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.dropColumn("escalation_claimed_by");
  });
}
