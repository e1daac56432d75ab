/**
 * One row per run. A run's event log was a second row repeating the run's pipeline data;
 * it is now a view over the run (same fields, the run's id as the log's id), and a run's
 * graph snapshot, the same for every run of one rule version, is stored once in
 * `graph_snapshots` and referenced. Indexes follow the queries: runs of a rule by time
 * (gates, lists), runs by time (event logs), and only the active or parked runs by status
 * and resume time (recovery), so an ended run adds two index entries, not eight.
 */
import type { Knex } from "knex";

const EVENT_LOGS_VIEW = `create view event_logs as
  select id, started_at as timestamp, rule_id, rule_name, room_name, sensor_id, log_status as status,
         trigger_type, id as execution_id, pipeline_data as pipeline_data_json, cast(null as text) as details
  from workflow_executions`;

const OLD_INDEXES = [
  "workflow_executions_rule_id_index",
  "workflow_executions_status_index",
  "workflow_executions_resume_at_index",
  "workflow_executions_started_at_index",
];

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("graph_snapshots", (t) => {
    t.increments("id").primary();
    t.integer("rule_id").notNullable().index();
    t.string("digest", 64).notNullable().unique();
    t.text("graph").notNullable();
    t.string("created_at", 32).notNullable();
  });
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.integer("graph_snapshot_id").nullable();
    t.string("log_status", 20).nullable();
    t.string("room_name", 100).nullable();
    t.string("sensor_id", 200).nullable();
  });
  // What only the event log row held moves onto its run.
  for (const col of ["log_status:status", "room_name:room_name", "sensor_id:sensor_id"]) {
    const [to, from] = col.split(":");
    await knex.raw(`update workflow_executions set ${to} = (select l.${from} from event_logs l where l.id = workflow_executions.event_log_id)`);
  }
  await knex("workflow_executions")
    .whereNull("log_status")
    .update({ log_status: knex.raw("case when status in ('running', 'waiting') then 'processing' when status = 'failed' then 'failed' else 'ignored' end") });
  await knex.schema.dropTable("event_logs");
  for (const name of OLD_INDEXES) await knex.raw(`drop index if exists ${name}`);
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.text("graph").nullable().alter();
  });
  await knex.raw(EVENT_LOGS_VIEW);
  await knex.raw("create index workflow_executions_rule_started on workflow_executions (rule_id, started_at)");
  // Queries for active runs name `completed_at is null` so that SQLite can use this index.
  await knex.raw("create index workflow_executions_active on workflow_executions (status) where completed_at is null");
  await knex.raw("create index workflow_executions_parked on workflow_executions (resume_at) where resume_at is not null");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("drop view if exists event_logs");
  await knex.raw(
    `update workflow_executions set graph = (select g.graph from graph_snapshots g where g.id = workflow_executions.graph_snapshot_id) where graph is null`,
  );
  for (const name of ["workflow_executions_rule_started", "workflow_executions_active", "workflow_executions_parked"]) {
    await knex.raw(`drop index if exists ${name}`);
  }
  await knex.schema.createTable("event_logs", (t) => {
    t.increments("id").primary();
    t.string("timestamp", 32).notNullable().index();
    t.integer("rule_id").nullable().index();
    t.string("rule_name", 200).nullable().index();
    t.string("room_name", 100).nullable();
    t.string("sensor_id", 200).nullable();
    t.string("status", 20).notNullable().index();
    t.string("trigger_type", 30).nullable();
    t.integer("execution_id").nullable();
    t.text("pipeline_data_json").notNullable().defaultTo("{}");
    t.text("details").nullable();
  });
  await knex.raw(`insert into event_logs (id, timestamp, rule_id, rule_name, room_name, sensor_id, status, trigger_type, execution_id, pipeline_data_json)
    select id, started_at, rule_id, rule_name, room_name, sensor_id, coalesce(log_status, 'ignored'), trigger_type, id, pipeline_data from workflow_executions`);
  await knex("workflow_executions").update({ event_log_id: knex.ref("id") });
  await knex.schema.alterTable("workflow_executions", (t) => {
    t.dropColumn("graph_snapshot_id");
    t.dropColumn("log_status");
    t.dropColumn("room_name");
    t.dropColumn("sensor_id");
    t.index(["rule_id"]);
    t.index(["status"]);
    t.index(["resume_at"]);
    t.index(["started_at"]);
  });
  await knex.schema.dropTable("graph_snapshots");
}
