/**
 * A graceful stop (SIGTERM, an update) lets a step under way finish and stores its run as it
 * ended, instead of leaving it "running" for the next start to recover as after a crash.
 */
import assert from "node:assert/strict";
import { createApp, type CareflowApp } from "../../../../../../runtime/app/app";
import { buildSettings } from "../../../../../../runtime/platform/config/load-settings";
import { createLogger } from "../../../../../../runtime/platform/core/logger";
import { openStore } from "../../../../../../runtime/platform/db/store";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../../fakes/openai-chat-server";
import { migratedDatabase, type TestDatabase } from "../../../../../support/test-db";
import { KEYS, testAuthSettings } from "../../../../../support/test-app";
import { eventually } from "../../../../../support/eventually";

describe("engine: a graceful stop", function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let model: ScriptedServer;
  let app: CareflowApp;
  before(async () => {
    db = await migratedDatabase();
    model = await startFakeOpenAiChatServer();
    // The model takes a while: the stop comes while the step waits for it.
    model.fallback = { content: "It is a quiet morning.", delayMs: 600 };
    app = await createApp({
      config: {
        port: 0,
        dataDir: db.dataDir,
        databaseUrl: db.databaseUrl,
        settingsFile: undefined,
        settings: buildSettings({
          auth: testAuthSettings(),
          llm: { models: [{ id: "text", api_type: "openai", base_url: model.baseUrl, model: "m", capabilities: ["text"] }] },
        }),
      },
      log: createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent"),
      nodeRed: true,
    });
    await app.listen(0, "127.0.0.1");
  });
  after(async () => {
    await model.close();
    await db.drop();
  });

  it("lets the step under way finish and stores its run as completed", async () => {
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const post = async (p: string, body: unknown) => {
      const res = await fetch(base + p, {
        method: "POST",
        headers: { "x-api-key": KEYS.admin, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, any>;
    };
    const imported = await post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Morning words", trigger_type: "manual" },
      steps: [{ label: "say", step_type: "llm_call", config: { model_id: "text", prompt: "Say something kind.", output_key: "words" } }],
    });
    assert.ok(imported.rule_id, JSON.stringify(imported));
    const { execution_id } = await post(`/api/v1/rules/${imported.rule_id}/execute`, {});
    await eventually("the model asked", () => model.requests.length > 0);
    assert.equal(model.requests.length, 1, "the step is waiting for the model");

    await app.close();

    const store = await openStore(db.databaseUrl, db.dataDir);
    try {
      const run = await store.db("workflow_executions").where({ id: execution_id }).first();
      assert.equal(run.status, "completed");
      assert.match(String(run.pipeline_data), /quiet morning/);
    } finally {
      await store.close();
    }
  });
});
