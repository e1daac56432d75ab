/**
 * The runs sidebar's admin API on the embedded Node-RED: `POST /careflow/runs/watch` takes
 * the same login as `GET /careflow/runs`, and a watch makes the sidebar listen to the engine
 * and forward run events over Node-RED comms.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

describe("runs sidebar admin API", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  const admin = (method: string, path: string, bearer?: string) =>
    fetch(`${t.baseUrl}/editor${path}`, { method, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

  it("needs the same editor login for the watch as for the runs list", async () => {
    for (const bearer of [undefined, KEYS.mcp, "not-a-key-12345"]) {
      const list = await admin("GET", "/careflow/runs", bearer);
      const watch = await admin("POST", "/careflow/runs/watch", bearer);
      assert.equal(list.status, 401, `GET with ${bearer}`);
      assert.equal(watch.status, list.status, `POST with ${bearer}`);
    }
    assert.equal(t.app.ctx.engine!.live.wants("step_started"), false, "a refused watch does not listen");
    assert.equal((await admin("GET", "/careflow/runs", KEYS.admin)).status, 200);
    assert.equal((await admin("GET", "/careflow/runs", KEYS.caregiver)).status, 200, "a caregiver reads runs in the editor");
  });

  it("listens to the engine once an editor watches, and forwards run events over comms", async () => {
    const live = t.app.ctx.engine!.live;
    assert.equal(live.wants("step_started"), false, "nobody watches yet");

    // An editor's comms connection, subscribed to the sidebar's topic.
    const comms = new WebSocket(t.baseUrl.replace("http", "ws") + "/editor/comms");
    const messages: Array<{ topic: string; data: Record<string, unknown> }> = [];
    comms.on("message", (raw) => {
      const parsed = JSON.parse(String(raw)) as unknown;
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) messages.push(m as { topic: string; data: Record<string, unknown> });
    });
    await new Promise((r, j) => comms.once("open", r).once("error", j));
    // The editor authenticates its comms with the session its login gave (an API key is accepted
    // only in a request the editor's Bearer gate has checked, so it cannot be guessed here).
    const login = await fetch(`${t.baseUrl}/editor/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "node-red-editor", grant_type: "password", scope: "", username: "admin", password: KEYS.admin }).toString(),
    });
    const session = ((await login.json()) as { access_token: string }).access_token;
    comms.send(JSON.stringify({ auth: session }));
    for (let i = 0; i < 100 && !messages.some((m) => (m as unknown as { auth?: string }).auth === "ok"); i++) await new Promise((r) => setTimeout(r, 10));
    comms.send(JSON.stringify({ subscribe: "careflow/pipeline" }));

    const res = await admin("POST", "/careflow/runs/watch", KEYS.admin);
    assert.equal(res.status, 204);
    assert.equal(live.wants("step_started"), true);
    assert.equal((await admin("POST", "/careflow/runs/watch", KEYS.admin)).status, 204, "watching again is fine");

    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Sidebar", trigger_type: "manual" },
      steps: [{ label: "check", step_type: "condition", schema_version: 1, config: { expression: "true" } }],
    });
    const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
    const mine = () => messages.filter((m) => m.topic === "careflow/pipeline" && m.data.execution_id === exec).map((m) => m.data.event_type);
    for (let i = 0; i < 200 && !mine().includes("pipeline_completed"); i++) await new Promise((r) => setTimeout(r, 10));
    comms.close();
    assert.deepEqual(mine(), ["pipeline_started", "step_started", "step_completed", "pipeline_completed"]);
  });
});
