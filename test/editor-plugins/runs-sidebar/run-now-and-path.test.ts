/**
 * What the editor's runs view is fed: "Run now" on a tab's rule with a sample trigger (its
 * permission and its bad input), and a run's detail with what each step read and wrote, its
 * trace and the path the run took on the canvas (nodes with their state, links taken, the
 * node to show).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { stepSpecByType } from "../../../runtime/care/core/rules/care-types";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";

type Json = Record<string, any>;

describe("runs view: run now and a run's path", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  const editor = (method: string, path: string, opts: { bearer?: string; body?: string } = {}) =>
    fetch(`${t.baseUrl}/editor${path}`, {
      method,
      headers: {
        ...(opts.bearer ? { authorization: `Bearer ${opts.bearer}` } : {}),
        ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: opts.body,
    });
  const tabOf = async (ruleId: number) => (await t.app.ctx.flows.snapshot()).index.rules.find((r) => r.id === ruleId)!.tab_id;
  const runNow = (tab: string, sample: unknown, bearer: string = KEYS.admin) =>
    editor("POST", `/careflow/tabs/${encodeURIComponent(tab)}/run`, { bearer, body: JSON.stringify(sample) });
  const settled = async (id: number, statuses = ["completed", "failed", "waiting"]): Promise<Json> => {
    for (let i = 0; i < 300; i++) {
      const d = (await editor("GET", `/careflow/runs/${id}`, { bearer: KEYS.admin }).then((r) => r.json())) as Json;
      if (statuses.includes(d.status)) return d;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`run ${id} never settled`);
  };

  let ruleId: number;
  let tab: string;
  before(async () => {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Kitchen camera check", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "kitchen_cam" } },
      steps: [
        { label: "from the kitchen?", step_type: "condition", schema_version: 1, config: { expression: "sensor_id == 'kitchen_cam'" } },
        {
          label: "tell",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "info", channels: ["pwa_popup_text"], message_template: "Seen by {{sensor_id}}" },
        },
        {
          label: "elsewhere",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "info", channels: ["pwa_popup_text"], message_template: "Somewhere else" },
        },
      ],
      edges: [
        { source_label: "from the kitchen?", source_port: "true", target_label: "tell" },
        { source_label: "from the kitchen?", source_port: "false", target_label: "elsewhere" },
      ],
    });
    assert.equal(res.status, 201, res.text);
    ruleId = res.body.rule_id;
    tab = await tabOf(ruleId);
  });

  it("runs the tab's rule with a sample trigger of the rule's own kind", async () => {
    const res = await runNow(tab, { sensor_id: "kitchen_cam", room_name: "Kitchen" });
    assert.equal(res.status, 201, await res.clone().text());
    const started = (await res.json()) as Json;
    assert.equal(started.rule_id, ruleId);
    const d = await settled(started.execution_id);
    assert.equal(d.status, "completed");
    assert.equal(d.trigger_type, "sensor_event", "the rule's own trigger type, not 'manual'");
    assert.equal(d.trigger_context.sensor_id, "kitchen_cam");

    const [check, tell, elsewhere] = d.timeline as Json[];
    assert.deepEqual(check.inputs, { sensor_id: "kitchen_cam" }, "what the condition read");
    assert.equal(check.output_port, "true");
    assert.equal(tell.trace.message, "Seen by kitchen_cam", "the message it rendered");
    assert.deepEqual(tell.inputs, { sensor_id: "kitchen_cam" });
    assert.equal(tell.outputs.notification_dispatched, false);
    assert.equal(elsewhere.status, "skipped");

    const path = d.path as Json;
    assert.equal(path.tab_id, tab);
    const state = (nodeId: string) => path.nodes.find((n: Json) => n.node_id === nodeId)?.state;
    const trigger = d.graph.trigger_node_id as string;
    assert.equal(state(trigger), "fired");
    assert.equal(state(check.node_id), "success");
    assert.equal(state(elsewhere.node_id), "skipped");
    const truePort = stepSpecByType("condition")!.outputPorts.indexOf("true");
    assert.deepEqual(
      new Set(path.links.map((l: Json) => `${l.source}:${l.port}`)),
      new Set([`${trigger}:0`, `${check.node_id}:${truePort}`, `${tell.node_id}:0`]),
      "the trigger's link, the condition's true port and the notification's output",
    );
    assert.equal(path.focus, tell.node_id, "the last step that ran");
    assert.match(path.nodes.find((n: Json) => n.node_id === check.node_id).text, /^ran .* ms → true$/);
  });

  it("a system_health rule's sample payload is its trigger_input too, as in a live run (the demo's message reads it there)", async () => {
    const yaml = fs.readFileSync(path.resolve(__dirname, "../../../../flows/examples/part-quiet.yaml"));
    const imported = await t.request("POST", "/api/v1/rules/import", { rawBody: yaml, headers: { "content-type": "application/yaml" } });
    assert.equal(imported.status, 201, imported.text);
    const sentence = "The kitchen camera has sent nothing since 14:02.";
    const res = await runNow(await tabOf(imported.body.rule_id), { webhook_payload: { part_id: "device:kitchen_cam", change: "went_silent", sentence } });
    assert.equal(res.status, 201, await res.clone().text());
    const d = await settled(((await res.json()) as Json).execution_id);
    assert.equal(d.trigger_type, "system_health");
    assert.equal((d.timeline as Json[])[0].trace.message, sentence);
  });

  it("shows the node a run waits at", async () => {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Wait a while", trigger_type: "manual" },
      steps: [{ label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 30 } }],
    });
    const run = await runNow(await tabOf(res.body.rule_id), {});
    const d = await settled(((await run.json()) as Json).execution_id, ["waiting"]);
    const pause = d.timeline[0];
    assert.equal(d.path.focus, pause.node_id);
    const node = d.path.nodes.find((n: Json) => n.node_id === pause.node_id);
    assert.equal(node.state, "waiting");
    assert.match(node.text, /^waiting until \d\d:\d\d UTC$/);
    assert.equal((await t.post(`/api/v1/workflows/${d.id}/cancel`)).status, 200);
  });

  it("needs the editor's write permission, and refuses a bad sample or tab with a detail", async () => {
    const caregiver = await runNow(tab, {}, KEYS.caregiver);
    assert.ok([401, 403].includes(caregiver.status), `a caregiver reads the editor, does not run rules (${caregiver.status})`);
    assert.equal((await editor("POST", `/careflow/tabs/${tab}/run`, { body: "{}" })).status, 401);
    const cases: Array<[unknown, RegExp]> = [
      [{ media_paths: ["../../etc/passwd"] }, /media_paths/],
      [{ sensor_id: 42 }, /sensor_id/],
      [{ occupancy_duration_minutes: -1 }, /occupancy_duration_minutes/],
      [{ webhook_payload: "text" }, /webhook_payload/],
      [[1, 2], /.+/],
    ];
    for (const [sample, field] of cases) {
      const res = await runNow(tab, sample);
      assert.equal(res.status, 422, JSON.stringify(sample));
      assert.match(((await res.json()) as Json).detail, field);
    }
    const unknown = await runNow("no-such-tab", {});
    assert.equal(unknown.status, 404);
    assert.match(((await unknown.json()) as Json).detail, /deploy it first/);
    for (const body of ["{", "\u0000", "x".repeat(10)]) {
      const res = await editor("POST", `/careflow/tabs/${tab}/run`, { bearer: KEYS.admin, body });
      assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(body)} → ${res.status}`);
    }
  });
});
