/**
 * Durable runs across two careflow processes on one PostgreSQL database (`cluster.enabled`),
 * as a provider runs them: instance B starting does not fail the run instance A is running; a
 * prompt A parked is answered through B's REST and the run goes on once; a run A is running is
 * cancelled through B; and when A is killed (SIGKILL) B fails A's interrupted run visibly and
 * resumes A's parked wait once, when it is due.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startService, type ServiceProcess } from "../../../../../support/service-process";
import { sharedPg, type SharedPg } from "../../../../../support/pg-cluster";
import { testDialect } from "../../../../../support/test-db";
import { eventually } from "../../../../../support/eventually";

const ADMIN = "cluster-runs-admin-key";
type Json = Record<string, any>;

/** A webhook receiver that holds each request until the test lets it answer. */
async function holdingReceiver(): Promise<{ url: string; held: () => number; release: () => void; close: () => Promise<void> }> {
  const waiting: http.ServerResponse[] = [];
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    count++;
    waiting.push(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    held: () => count,
    release: () => waiting.shift()?.writeHead(200, { "content-type": "application/json" }).end("{}"),
    close: async () => {
      for (const res of waiting.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe("runs across two instances (cluster on PostgreSQL, real processes)", function () {
  this.timeout(120_000);
  let pg: SharedPg;
  let hook: Awaited<ReturnType<typeof holdingReceiver>>;
  const instances: Record<string, ServiceProcess> = {};
  const rules: Record<string, number> = {};
  let slowRun = 0;

  const start = async (id: string): Promise<ServiceProcess> => {
    const dataDir = path.join(pg.dataDir, id);
    fs.mkdirSync(dataDir, { recursive: true });
    const settingsFile = path.join(dataDir, "settings.json");
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        cluster: { enabled: true, instance_id: id, lease_seconds: 1 },
        notifications: { webhook: { url: hook.url, timeout_seconds: 60 } },
      }),
    );
    const env = { DATABASE_URL: pg.url, CAREFLOW_DATA_DIR: dataDir, CAREFLOW_SETTINGS: settingsFile, CAREFLOW_ADMIN_KEY: ADMIN, CAREFLOW_DEMO: "0" };
    return (instances[id] = await startService(env, 60_000));
  };
  const api = async (on: ServiceProcess, method: string, p: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(on.baseUrl + p, {
      method,
      headers: { "x-api-key": ADMIN, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const run = async (on: ServiceProcess, id: number): Promise<Json> => (await api(on, "GET", `/api/v1/workflows/${id}`)).body;
  const untilStatus = (on: ServiceProcess, id: number, statuses: string[], ms = 20_000): Promise<Json> =>
    eventually(
      `run ${id} ${statuses.join("/")}`,
      async () => {
        const r = await run(on, id);
        return statuses.includes(r.status) ? r : undefined;
      },
      ms,
    );
  const fire = async (on: ServiceProcess, rule: string): Promise<number> => {
    const res = await api(on, "POST", `/api/v1/rules/${rules[rule]}/execute`);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.execution_id as number;
  };
  const importRule = async (on: ServiceProcess, name: string, steps: Json[], edges: Json[] = []): Promise<void> => {
    const res = await api(on, "POST", "/api/v1/rules/import", { schema_version: 1, rule: { name, trigger_type: "manual" }, steps, edges });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    rules[name] = res.body.rule_id as number;
  };
  const labels = (r: Json): string[] => r.step_timings.map((s: { label: string }) => s.label);

  before(async function () {
    if (testDialect() === "sqlite") {
      process.stdout.write("\n    SKIPPED: a cluster needs PostgreSQL (this runs in the PostgreSQL pass)\n");
      this.skip();
    }
    pg = await sharedPg(this);
    hook = await holdingReceiver();
    const a = await start("alpha");
    // Rules are imported before beta starts, so that beta's Node-RED runs them from its start.
    await importRule(a, "Slow", [{ label: "tell", step_type: "notification", schema_version: 1, config: { alert_level: "info", channels: ["webhook"] } }]);
    await importRule(
      a,
      "Ask",
      [
        { label: "ask", step_type: "interactive_prompt", schema_version: 1, config: { countdown_seconds: 300 } },
        { label: "okay?", step_type: "condition", schema_version: 1, config: { expression: "interactive_response.action == 'dismiss'" } },
      ],
      [{ source_label: "ask", source_port: "main", target_label: "okay?" }],
    );
    await importRule(
      a,
      "Pause",
      [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 0.1 } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "wait_started != null", trigger_cooloff: true } },
      ],
      [{ source_label: "pause", source_port: "main", target_label: "after" }],
    );
    // Alpha is running a run (its webhook call held) when beta starts.
    slowRun = await fire(a, "Slow");
    await eventually("alpha's run calls the webhook", () => hook.held() === 1);
    await start("beta");
  });
  after(async () => {
    for (const p of Object.values(instances)) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop("SIGTERM").catch(() => undefined);
    await hook?.close();
    await pg?.drop();
  });

  it("beta's start leaves the run alpha is running alone: alpha completes it", async () => {
    const { alpha, beta } = instances;
    assert.equal((await run(beta, slowRun)).status, "running");
    hook.release();
    const done = await untilStatus(beta, slowRun, ["completed", "failed"]);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.equal((await run(alpha, slowRun)).status, "completed");
  });

  it("resumes a prompt alpha parked once, when the senior answers through beta", async () => {
    const { alpha, beta } = instances;
    const exec = await fire(alpha, "Ask");
    const parked = await untilStatus(beta, exec, ["waiting"]);
    const stepId = parked.step_timings.find((s: { label: string }) => s.label === "ask").step_id as number;
    const answer = { execution_id: exec, step_id: stepId, channel: "pwa_popup_text", action: "dismiss" };
    const first = await api(beta, "POST", "/api/v1/interactive-responses", answer);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.success, true, JSON.stringify(first.body));
    const done = await untilStatus(alpha, exec, ["completed", "failed"]);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.deepEqual(labels(done), ["ask", "okay?"], "each step ran once");
    assert.equal(done.pipeline_data.interactive_response.action, "dismiss");
    const again = await api(alpha, "POST", "/api/v1/interactive-responses", { ...answer, action: "escalate" });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.success, false, "a second answer, through the other instance, changes nothing");
  });

  it("cancels through beta a run alpha is running: alpha stops it at its next step", async () => {
    const { alpha, beta } = instances;
    const calls = hook.held();
    const exec = await fire(alpha, "Slow");
    await eventually("alpha's run calls the webhook", () => hook.held() === calls + 1);
    const res = await api(beta, "POST", `/api/v1/workflows/${exec}/cancel`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    hook.release();
    const done = await untilStatus(alpha, exec, ["cancelled", "completed", "failed"]);
    assert.equal(done.status, "cancelled", JSON.stringify(done));
  });

  it("after alpha is killed, beta fails alpha's interrupted run and resumes its parked wait once, when due", async () => {
    const { alpha, beta } = instances;
    const pause = await fire(alpha, "Pause");
    const parked = await untilStatus(beta, pause, ["waiting"]);
    const dueAt = Date.parse(parked.pipeline_data.wait_started) + 6000;
    const calls = hook.held();
    const interrupted = await fire(alpha, "Slow");
    await eventually("alpha's run calls the webhook", () => hook.held() === calls + 1);
    assert.equal((await run(beta, interrupted)).status, "running");
    const killedAt = Date.now();
    await alpha.stop("SIGKILL");

    const failed = await untilStatus(beta, interrupted, ["failed", "completed"]);
    assert.equal(failed.status, "failed");
    assert.match(failed.error, /interrupted/);
    const done = await untilStatus(beta, pause, ["completed", "failed"]);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.deepEqual(labels(done), ["pause", "after"], "the step after the wait ran once");
    // Due before the survivor could know alpha died: resumed within 5 s of the kill (and never early).
    const resumedAt = Date.parse(done.completed_at);
    assert.ok(resumedAt >= dueAt, `resumed ${dueAt - resumedAt} ms early`);
    assert.ok(resumedAt <= Math.max(dueAt, killedAt + 5000) + 1500, `resumed ${resumedAt - killedAt} ms after the kill, ${resumedAt - dueAt} ms after due`);
    const logs = (await api(beta, "GET", "/api/v1/events?rule_name=Pause")).body as unknown as Array<{ status: string }>;
    assert.deepEqual(
      logs.map((l) => l.status),
      ["completed"],
      "one event log, finalised once",
    );
  });
});
