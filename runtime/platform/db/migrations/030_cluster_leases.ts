/**
 * `cluster_leases` and `cluster_instances` (platform/cluster, issue 28): which instance holds
 * each singular job (cron, midnight reports, retention, the chat poller, the hub connection)
 * and until when, with a fencing token that grows at every change of holder; and the instances
 * that are running, by their heartbeats. Times are the app clock's epoch milliseconds, so a
 * test's ManualClock drives expiry. Only written when `cluster.enabled` (PostgreSQL).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("cluster_leases", (t) => {
    t.string("name", 100).primary();
    t.string("holder", 100).notNullable();
    t.bigInteger("token").notNullable();
    t.bigInteger("acquired_at").notNullable();
    t.bigInteger("expires_at").notNullable();
  });
  await knex.schema.createTable("cluster_instances", (t) => {
    t.string("instance_id", 100).primary();
    t.string("host", 255).notNullable();
    t.integer("pid").notNullable();
    t.bigInteger("started_at").notNullable();
    t.bigInteger("heartbeat_at").notNullable();
    t.bigInteger("expires_at").notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("cluster_instances");
  await knex.schema.dropTableIfExists("cluster_leases");
}
