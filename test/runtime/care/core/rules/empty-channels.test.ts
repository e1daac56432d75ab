/**
 * Issue 42 §1: a notification with an empty channel list would reach nobody, so every gate
 * refuses it (deploy from the editor, REST step writes, validate, import, MCP), each with a
 * message naming the rule, the node and the rule it breaks; leaving `channels` out (the
 * level's default channels) stays fine.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { connectMcp } from "../../surfaces/mcp/mcp-client";

const RULE = /a notification must reach someone: choose at least one channel, or leave channels out to use the alert level's default channels/;

describe("rules: a notification with no channels is refused at every gate", function () {
  this.timeout(30000);
  let t: TestApp;
  let ruleId: number;
  let stepId: number;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
    const made = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Lunch reminder", trigger_type: "manual" },
      steps: [{ label: "remind", step_type: "notification", schema_version: 1, config: { alert_level: "reminder", message_template: "Lunch" } }],
    });
    assert.equal(made.status, 201, made.text);
    ruleId = made.body.rule_id;
    stepId = (await t.get(`/api/v1/rules/${ruleId}/steps`)).body[0].id;
  });
  after(() => t.close());

  const storedConfig = async () => (await t.get(`/api/v1/rules/${ruleId}/steps`)).body[0].config_json;

  it("REST: adding or changing a step to channels [] is a 422 naming the rule, the step and the field; nothing is stored", async () => {
    const added = await t.post(`/api/v1/rules/${ruleId}/steps`, {
      step_type: "notification",
      label: "tell",
      config_json: { alert_level: "info", channels: [] },
    });
    assert.equal(added.status, 422, added.text);
    assert.match(added.body.detail, /^rule 'Lunch reminder', step 'tell': config_json\.channels: /);
    assert.match(added.body.detail, RULE);
    assert.equal((await t.get(`/api/v1/rules/${ruleId}/steps`)).body.length, 1);

    const before = await storedConfig();
    const changed = await t.request("PUT", `/api/v1/rules/${ruleId}/steps/${stepId}`, { body: { config_json: { alert_level: "reminder", channels: [] } } });
    assert.equal(changed.status, 422, changed.text);
    assert.match(changed.body.detail, /^rule 'Lunch reminder', step 'remind': config_json\.channels: /);
    assert.match(changed.body.detail, RULE);
    assert.deepEqual(await storedConfig(), before);
    assert.equal(before.channels, undefined, "the level's default channels: no channels key");
  });

  it("REST validate names the step and the field", async () => {
    const res = await t.post(`/api/v1/rules/${ruleId}/validate`, {
      steps: [{ label: "remind", step_type: "notification", config_json: { alert_level: "reminder", channels: [] } }],
      edges: [],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.valid, false);
    const e = res.body.errors.find((p: { field: string }) => p.field === "config_json.channels");
    assert.ok(e, JSON.stringify(res.body.errors));
    assert.equal(e.step_label, "remind");
    assert.match(e.message, RULE);
  });

  const bundle = (name: string) => ({
    schema_version: 1,
    rule: { name, trigger_type: "manual" },
    steps: [{ label: "shout", step_type: "notification", schema_version: 1, config: { alert_level: "warning", channels: [] } }],
  });

  it("import: refused with the rule and the step named; the rule is not created", async () => {
    const res = await t.post("/api/v1/rules/import", bundle("Silent alarm"));
    assert.equal(res.status, 422, res.text);
    assert.match(res.body.detail, /^Import of rule 'Silent alarm' refused: step 'shout': config_json\.channels: /);
    assert.match(res.body.detail, RULE);
    assert.ok(!(await t.get("/api/v1/rules")).body.some((r: { name: string }) => r.name === "Silent alarm"));
  });

  it("MCP import_rule_bundle: the same refusal, for preview and commit", async () => {
    const client: Client = await connectMcp(t.baseUrl, KEYS.admin);
    try {
      const preview = (await client.callTool({ name: "import_rule_bundle", arguments: { bundle: bundle("Agent alarm"), mode: "preview" } })) as {
        content: Array<{ text: string }>;
      };
      const report = JSON.parse(preview.content[0].text);
      assert.equal(report.status, "error");
      assert.ok(
        report.errors.some((e: string) => /^step 'shout': config_json\.channels: /.test(e) && RULE.test(e)),
        JSON.stringify(report.errors),
      );
      assert.equal(report.rule_name, "Agent alarm");
      const commit = (await client.callTool({ name: "import_rule_bundle", arguments: { bundle: bundle("Agent alarm"), mode: "commit" } })) as {
        content: Array<{ text: string }>;
        isError?: boolean;
      };
      assert.equal(commit.isError, true);
      assert.match(commit.content[0].text, /Import of rule 'Agent alarm' refused: step 'shout': config_json\.channels: a notification must reach someone/);
    } finally {
      await client.close();
    }
  });

  it("deploy from the editor: refused, naming the rule, the node and the field", async () => {
    const editor = async (path: string, init: { method?: string; body?: unknown } = {}) => {
      const res = await fetch(`${t.baseUrl}/editor${path}`, {
        method: init.method ?? "GET",
        headers: {
          authorization: `Bearer ${KEYS.admin}`,
          "content-type": "application/json",
          "Node-RED-API-Version": "v2",
          "Node-RED-Deployment-Type": "full",
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return { status: res.status, text, body: text.startsWith("{") ? JSON.parse(text) : undefined };
    };
    const current = await editor("/flows");
    const flows = (current.body.flows as Array<Record<string, any>>).map((n) =>
      n.type === "care-notification" && n.name === "remind" ? { ...n, config: { ...n.config, channels: [] } } : n,
    );
    const res = await editor("/flows", { method: "POST", body: { flows, rev: current.body.rev } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /rule &#39;Lunch reminder&#39;, step &#39;remind&#39;, channels: a notification must reach someone/);
    assert.equal((await storedConfig()).channels, undefined, "nothing was deployed");
  });
});
