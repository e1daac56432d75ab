/**
 * A waiting run survives the process: kill the service (SIGKILL, no goodbye) while a run
 * waits, start it again on the same data, and the run resumes and completes exactly once.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startService } from "../../../../../support/service-process";
import { eventually } from "../../../../../support/eventually";

describe("waits across a restart", function () {
  this.timeout(90_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-restart-"));
  const env = { CAREFLOW_DATA_DIR: dataDir, CAREFLOW_ADMIN_KEY: "restart-admin-key", CAREFLOW_DEMO: "0" };
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const api = async (base: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(base + p, {
      method,
      headers: { "x-api-key": "restart-admin-key", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it("resumes a run parked before a SIGKILL and completes it once", async () => {
    const first = await startService(env);
    let exec: number;
    try {
      const imported = await api(first.baseUrl, "POST", "/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: "Survives", trigger_type: "manual" },
        steps: [
          { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 0.05 } },
          { label: "after", step_type: "condition", schema_version: 1, config: { expression: "wait_started != null", trigger_cooloff: true } },
        ],
        edges: [{ source_label: "pause", source_port: "main", target_label: "after" }],
      });
      assert.equal(imported.status, 201, JSON.stringify(imported.body));
      exec = (await api(first.baseUrl, "POST", `/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id;
      await eventually("the run to park", async () => (await api(first.baseUrl, "GET", `/api/v1/workflows/${exec}`)).body.status === "waiting");
    } finally {
      await first.stop("SIGKILL");
    }
    const second = await startService(env);
    try {
      const run = await eventually(
        "the run to end after the restart",
        async () => {
          const r = (await api(second.baseUrl, "GET", `/api/v1/workflows/${exec!}`)).body as Record<string, any>;
          return ["completed", "failed", "cancelled"].includes(r.status) ? r : undefined;
        },
        15_000,
      );
      assert.equal(run.status, "completed", JSON.stringify(run));
      assert.deepEqual(
        run.step_timings.map((s: { label: string }) => s.label),
        ["pause", "after"],
        "the step after the wait ran once",
      );
      const logs = (await api(second.baseUrl, "GET", "/api/v1/events?rule_name=Survives")).body as unknown as Array<{ status: string }>;
      assert.deepEqual(
        logs.map((l) => l.status),
        ["completed"],
        "one event log, finalised once",
      );
      const all = (await api(second.baseUrl, "GET", "/api/v1/workflows")).body as unknown as unknown[];
      assert.equal(all.length, 1, "no second run appeared");
    } finally {
      await second.stop("SIGTERM");
    }
  });
});
