/**
 * One store for both doors: a deploy from the editor is visible through REST at once, and a
 * REST change is live in the runtime and in what the editor loads. A deploy with a bad
 * care node config is refused.
 */
import assert from "node:assert/strict";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

interface Node {
  id: string;
  type: string;
  z?: string;
  [k: string]: unknown;
}

describe("rules: editor and REST round trips", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  const editor = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(`${t.baseUrl}/editor${path}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${KEYS.admin}`, "content-type": "application/json", "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    const json = (res.headers.get("content-type") ?? "").includes("json");
    return { status: res.status, body: text && json ? JSON.parse(text) : undefined, text };
  };

  it("shows a rule deployed from the editor through REST at once", async () => {
    const current = await editor("/flows");
    const flows: Node[] = [
      ...current.body.flows,
      { id: "ed-tab", type: "tab", label: "Editor rule", disabled: false, info: "made in the editor" },
      {
        id: "ed-trig",
        type: "care-trigger",
        z: "ed-tab",
        config: { trigger_type: "manual", cool_off_minutes: 15 },
        config_version: 1,
        x: 100,
        y: 80,
        wires: [["ed-cond"]],
      },
      {
        id: "ed-cond",
        type: "care-condition",
        z: "ed-tab",
        name: "check",
        config: { expression: "x > 1", trigger_cooloff: false },
        config_version: 1,
        x: 300,
        y: 80,
        wires: [["ed-wait"], []],
      },
      { id: "ed-wait", type: "care-wait", z: "ed-tab", name: "pause", config: { duration_minutes: 3 }, config_version: 2, x: 500, y: 80, wires: [[]] },
    ];
    const res = await editor("/flows", { method: "POST", body: { flows, rev: current.body.rev } });
    assert.equal(res.status, 200, res.text);
    const rules = (await t.get("/api/v1/rules")).body;
    const rule = rules.find((r: { name: string }) => r.name === "Editor rule");
    assert.ok(rule, "the rule is listed");
    assert.equal(rule.cool_off_minutes, 15);
    assert.equal(rule.description, "made in the editor");
    const detail = (await t.get(`/api/v1/rules/${rule.id}`)).body;
    assert.deepEqual(
      detail.steps.map((s: { label: string; step_type: string }) => [s.label, s.step_type]),
      [
        ["check", "condition"],
        ["pause", "wait"],
      ],
    );
    assert.deepEqual(detail.edges, [{ source_step_id: detail.steps[0].id, source_port: "true", target_step_id: detail.steps[1].id, target_port: "main" }]);
  });

  it("keeps step ids stable across editor deploys", async () => {
    const rule = (await t.get("/api/v1/rules")).body.find((r: { name: string }) => r.name === "Editor rule");
    const before = (await t.get(`/api/v1/rules/${rule.id}/steps`)).body.map((s: { id: number }) => s.id);
    const current = await editor("/flows");
    const flows = current.body.flows.map((n: Node) => (n.id === "ed-wait" ? { ...n, x: 640 } : n));
    assert.equal((await editor("/flows", { method: "POST", body: { flows, rev: current.body.rev } })).status, 200);
    const after = (await t.get(`/api/v1/rules/${rule.id}/steps`)).body;
    assert.deepEqual(
      after.map((s: { id: number }) => s.id),
      before,
    );
    assert.equal(after[1].position_x, 640);
  });

  it("makes a REST change live in the runtime and in what the editor loads", async () => {
    const created = await t.post("/api/v1/rules", { name: "REST rule", trigger_type: "manual" });
    assert.equal(created.status, 201, created.text);
    const step = await t.post(`/api/v1/rules/${created.body.id}/steps`, { step_type: "wait", label: "rest wait", config_json: { duration_minutes: 7 } });
    assert.equal(step.status, 201, step.text);
    const flows: Node[] = (await editor("/flows")).body.flows;
    const tab = flows.find((n) => n.type === "tab" && n.label === "REST rule");
    assert.ok(tab, "the editor loads the new tab");
    const wait = flows.find((n) => n.z === tab!.id && n.type === "care-wait");
    assert.deepEqual(wait?.config, { duration_minutes: 7 });
    const trigger = flows.find((n) => n.z === tab!.id && n.type === "care-trigger");
    assert.deepEqual(trigger?.wires, [[wait!.id]], "the trigger feeds the first step");
    // Live: the running runtime holds the new tab and its node.
    const runtimeFlow = await editor(`/flow/${tab!.id}`);
    assert.equal(runtimeFlow.status, 200);
    assert.ok(runtimeFlow.body.nodes.some((n: Node) => n.id === wait!.id));
  });

  it("refuses an editor deploy with an invalid care node config, and keeps the old flows", async () => {
    const current = await editor("/flows");
    const flows = current.body.flows.map((n: Node) => (n.id === "ed-wait" ? { ...n, config: { duration_minutes: "forever" } } : n));
    const res = await editor("/flows", { method: "POST", body: { flows, rev: current.body.rev } });
    assert.ok(res.status >= 400, `deploy answered ${res.status}`);
    assert.match(res.text, /pause.*duration_minutes/);
    assert.match(
      res.text,
      /^This would break a rule, so nothing was deployed:<ul><li>rule &#39;Editor rule&#39;, step &#39;pause&#39;, duration_minutes: Invalid input/,
    );
    assert.doesNotMatch(res.text, /unexpected_error|\{"code"/, "not Node-RED's raw JSON");
    const rule = (await t.get("/api/v1/rules")).body.find((r: { name: string }) => r.name === "Editor rule");
    const steps = (await t.get(`/api/v1/rules/${rule.id}/steps`)).body;
    assert.equal(steps[1].config_json.duration_minutes, 3, "the store still has the last good deploy");
  });

  it("deleting the tab in the editor deletes the rule", async () => {
    const current = await editor("/flows");
    const flows = current.body.flows.filter((n: Node) => n.id !== "ed-tab" && n.z !== "ed-tab");
    assert.equal((await editor("/flows", { method: "POST", body: { flows, rev: current.body.rev } })).status, 200);
    const names = (await t.get("/api/v1/rules")).body.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ["REST rule"]);
  });
});
