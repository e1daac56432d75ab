/**
 * `workflow_executions.instance_id`: the cluster instance that runs or parked a run (issue 28,
 * docs/cluster.md). Only written when `cluster.enabled`: a run whose instance is no longer alive
 * is recovered by a survivor, a run of a live instance is left alone. Null for one instance.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.string("instance_id", 100).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.dropColumn("instance_id");
  });
}
