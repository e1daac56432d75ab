/**
 * Migration 021 on a store holding a prompt from before it: the prompt gets the texts the
 * step's version 1 showed by default and its message as the popup message, so it can be
 * sent to a web app that connects; a prompt recorded after it keeps its own; rolling back
 * drops the columns and keeps the rows.
 */
import assert from "node:assert/strict";
import knexFactory, { type Knex } from "knex";
import { storeConfig } from "../../../../runtime/platform/db/store";
import { migrationSource } from "../../../../runtime/platform/db/migrations";
import { freshDatabase, type TestDatabase } from "../../../support/test-db";

const OLD = {
  execution_id: 5,
  step_id: 2,
  rule_id: 1,
  message: "Are you warm enough?",
  output_key: "interactive_response",
  timeout_action: "escalate",
  auto_escalate: false,
  expires_at: "2026-01-01T22:01:00.000Z",
  created_at: "2026-01-01T22:00:00.000Z",
};

describe("migration 021: a prompt keeps what its frame shows", () => {
  let fresh: TestDatabase;
  let db: Knex;
  before(async function () {
    this.timeout(30_000);
    fresh = await freshDatabase();
    db = knexFactory(storeConfig(fresh.databaseUrl, fresh.dataDir).config);
    // Up to 019: the store as the release before this one left it.
    while (!(await db.migrate.currentVersion({ migrationSource } as Knex.MigratorConfig)).startsWith("019")) await db.migrate.up({ migrationSource });
    await db("interactive_prompts").insert(OLD);
    await db.migrate.latest({ migrationSource });
  });
  after(async () => {
    await db.destroy();
    await fresh.drop();
  });

  it("gives a prompt from before it the default texts and its message", async () => {
    const row = await db("interactive_prompts").where({ execution_id: 5 }).first();
    assert.deepEqual(
      [row.title, row.popup_message, row.escalate_button_text, row.dismiss_button_text, row.voice_prompt, row.voice_instruction],
      ["Question for You", "Are you warm enough?", "I need help", "I'm okay", null, null],
    );
  });

  it("rolls back to the columns before it, keeping the rows", async () => {
    // Later migrations stay applied: only 021 is rolled back (and brought back after).
    await db.migrate.down({ migrationSource, name: "021_prompt_frames" });
    const row = await db("interactive_prompts").where({ execution_id: 5 }).first();
    assert.equal(row.message, "Are you warm enough?");
    assert.ok(!("title" in row) && !("voice_prompt" in row), Object.keys(row).join(", "));
    await db.migrate.up({ migrationSource, name: "021_prompt_frames" });
  });
});
