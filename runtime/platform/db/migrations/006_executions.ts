/**
 * Workflow executions. A run's step records, ports and errors are JSON columns of its one
 * row (written by group commit), so recording a run costs one row, not one per step.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("workflow_executions", (t) => {
    t.increments("id").primary();
    t.integer("rule_id").notNullable().index();
    t.string("rule_name", 200).notNullable();
    t.string("status", 12).notNullable().index();
    t.string("trigger_type", 30).notNullable();
    t.text("trigger_context").notNullable();
    t.text("graph").notNullable();
    t.text("pipeline_data").notNullable();
    t.text("step_records").notNullable().defaultTo("[]");
    t.text("activated_ports").notNullable().defaultTo("[]");
    t.text("skipped_nodes").notNullable().defaultTo("[]");
    t.text("errors").notNullable().defaultTo("[]");
    t.string("resume_at", 32).nullable().index();
    t.text("waiting").nullable();
    t.integer("rerun_of").nullable();
    t.integer("event_log_id").nullable();
    t.text("error").nullable();
    t.string("started_at", 32).notNullable().index();
    t.string("updated_at", 32).notNullable();
    t.string("completed_at", 32).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("workflow_executions");
}
