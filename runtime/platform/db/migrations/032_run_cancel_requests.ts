/**
 * `workflow_executions.cancel_requested_at`: a cancel asked through one cluster instance of a run
 * another instance is running (docs/cluster.md). The instance running it sees the request within
 * a third of `lease_seconds` and stops the run at its next step. Never written by one instance.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.string("cancel_requested_at", 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.dropColumn("cancel_requested_at");
  });
}
