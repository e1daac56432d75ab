/**
 * `mcp_calls` (care/surfaces/mcp): one row per MCP tool call, over `/mcp` or the REST mirror: who called
 * which tool with which arguments, how long it took and how it ended, so the family can see
 * what an agent did (`GET /api/v1/mcp/calls`).
 */
import type { Knex } from "knex";

const TS = 32;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("mcp_calls", (t) => {
    t.increments("id").primary();
    t.string("timestamp", TS).notNullable();
    t.string("caller", 200).notNullable();
    t.string("transport", 10).notNullable();
    t.string("session_id", 64).nullable();
    t.string("tool", 100).notNullable();
    t.text("arguments_json").notNullable().defaultTo("{}");
    t.float("duration_ms").notNullable().defaultTo(0);
    t.string("outcome", 10).notNullable();
    t.text("error").nullable();
    t.index(["timestamp"]);
    t.index(["tool", "timestamp"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("mcp_calls");
}
