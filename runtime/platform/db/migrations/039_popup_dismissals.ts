/**
 * `popup_dismissals` (household/alerts, issue 42): the alert popups a screen was told to put
 * away (OK pressed on the web app), per screen: the key's name and the tablet's own id. A
 * screen that reconnects, or any screen after a restart, is not shown them again; the alert
 * itself stays open for the family. Gone with the alert.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("popup_dismissals", (t) => {
    t.integer("alert_id").notNullable().references("id").inTable("alerts").onDelete("CASCADE");
    t.string("screen", 300).notNullable();
    t.string("dismissed_at", 32).notNullable();
    t.primary(["alert_id", "screen"]);
    t.index(["screen"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("popup_dismissals");
}
