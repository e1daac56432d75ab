/**
 * Migration 010 on a store that already holds runs: their event logs (status, room, sensor)
 * read the same through the view, their inline graphs stay readable, and rolling back
 * gives the event-log table back with the same rows.
 */
import assert from "node:assert/strict";
import knexFactory, { type Knex } from "knex";
import { storeConfig } from "../../../../runtime/platform/db/store";
import { migrationSource } from "../../../../runtime/platform/db/migrations";
import { parseRow, selectExecutions } from "../../../../runtime/care/core/pipeline/engine/execution-rows";
import { freshDatabase, type TestDatabase } from "../../../support/test-db";

describe("migration 010: one row per run", () => {
  let fresh: TestDatabase;
  let db: Knex;
  before(async () => {
    fresh = await freshDatabase();
    db = knexFactory(storeConfig(fresh.databaseUrl, fresh.dataDir).config);
    // Up to 009: the store as the previous release left it.
    while (!(await db.migrate.currentVersion({ migrationSource } as Knex.MigratorConfig)).startsWith("009")) await db.migrate.up({ migrationSource });
    const graph = JSON.stringify({ rule_id: 3, rule_name: "Night hall", steps: [{ id: 9, label: "c" }], edges: [] });
    const common = {
      rule_id: 3,
      rule_name: "Night hall",
      trigger_type: "sensor_event",
      trigger_context: "{}",
      graph,
      step_records: "[]",
      updated_at: "2026-01-01T22:00:00.000Z",
    };
    await db("workflow_executions").insert([
      { ...common, id: 1, status: "completed", pipeline_data: '{"a":1}', event_log_id: 7, started_at: "2026-01-01T22:00:00.000Z" },
      {
        ...common,
        id: 2,
        status: "waiting",
        pipeline_data: "{}",
        event_log_id: 8,
        resume_at: "2026-01-01T23:00:00.000Z",
        started_at: "2026-01-01T22:30:00.000Z",
      },
    ]);
    await db("event_logs").insert([
      {
        id: 7,
        timestamp: "2026-01-01T22:00:00.000Z",
        rule_id: 3,
        rule_name: "Night hall",
        room_name: "hallway",
        sensor_id: "hall_pir",
        status: "completed",
        trigger_type: "sensor_event",
        execution_id: 1,
        pipeline_data_json: '{"a":1}',
      },
      {
        id: 8,
        timestamp: "2026-01-01T22:30:00.000Z",
        rule_id: 3,
        rule_name: "Night hall",
        room_name: "hallway",
        sensor_id: "hall_pir",
        status: "processing",
        trigger_type: "sensor_event",
        execution_id: 2,
        pipeline_data_json: "{}",
      },
    ]);
    await db.migrate.up({ migrationSource });
  });
  after(async () => {
    await db.destroy();
    await fresh.drop();
  });

  it("keeps each run's event log, now read from the run", async () => {
    const logs = await db("event_logs").orderBy("timestamp", "asc").select("execution_id", "status", "room_name", "sensor_id", "rule_id", "pipeline_data_json");
    assert.deepEqual(
      logs.map((l) => ({ ...l, execution_id: Number(l.execution_id), rule_id: Number(l.rule_id) })),
      [
        { execution_id: 1, status: "completed", room_name: "hallway", sensor_id: "hall_pir", rule_id: 3, pipeline_data_json: '{"a":1}' },
        { execution_id: 2, status: "processing", room_name: "hallway", sensor_id: "hall_pir", rule_id: 3, pipeline_data_json: "{}" },
      ],
    );
  });

  it("keeps a run's inline graph snapshot readable, and the parked run parked", async () => {
    const rows = (await selectExecutions(db).orderBy("we.id", "asc")).map((r: Record<string, unknown>) => parseRow(r));
    assert.equal(rows[0].graph.rule_name, "Night hall");
    assert.deepEqual([rows[1].status, rows[1].resume_at], ["waiting", "2026-01-01T23:00:00.000Z"]);
  });

  it("rolls back to an event-log table with the same rows", async () => {
    await db.migrate.down({ migrationSource });
    const logs = await db("event_logs").orderBy("id", "asc").select("id", "status", "room_name");
    assert.deepEqual(
      logs.map((l) => ({ ...l, id: Number(l.id) })),
      [
        { id: 1, status: "completed", room_name: "hallway" },
        { id: 2, status: "processing", room_name: "hallway" },
      ],
    );
    await db.migrate.up({ migrationSource });
  });
});
