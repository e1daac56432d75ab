/**
 * `occupancy_presence` and `occupancy_fires` (care/core/pipeline/triggers/occupancy.store.ts, issue
 * 28): with several instances, the occupancy_duration timers run on one of them while presence
 * events reach whichever instance has the hub. Each presence sensor's last change of state
 * (occupied or not, since when: the app clock's epoch milliseconds) is kept for the timers'
 * holder to follow and for a new holder to rebuild them from; each rule fired for an occupied
 * period is claimed by one row, so a period fires its rule once across a change of holder.
 * Only written when `cluster.enabled`.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("occupancy_presence", (t) => {
    t.string("sensor_id", 100).primary();
    t.boolean("occupied").notNullable();
    t.bigInteger("at").notNullable();
  });
  await knex.schema.createTable("occupancy_fires", (t) => {
    t.integer("rule_id").notNullable();
    t.string("sensor_id", 100).notNullable();
    /** The occupied period's start. */
    t.bigInteger("since").notNullable();
    t.bigInteger("fired_at").notNullable();
    t.primary(["rule_id", "sensor_id", "since"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("occupancy_fires");
  await knex.schema.dropTableIfExists("occupancy_presence");
}
