/**
 * What an alert's escalation re-sends: the notification as it was first sent (level,
 * channels, the message rendered for each channel, room, image, channel options and the
 * escalation plan), as JSON on the alert. Escalation itself uses the existing
 * `escalation_count` and `next_escalation_at` columns.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.text("notification_json").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("alerts", (t) => {
    t.dropColumn("notification_json");
  });
}
