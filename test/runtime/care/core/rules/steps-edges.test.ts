import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "../../../../support/test-app";

describe("rules: steps, edges, contexts and dependencies", () => {
  let t: TestApp;
  let rule: number;
  const steps = (body: unknown) => t.post(`/api/v1/rules/${rule}/steps`, body);

  beforeEach(async () => {
    t = await startTestApp();
    rule = (await t.post("/api/v1/rules", { name: "Fall watch", trigger_type: "manual" })).body.id;
  });
  afterEach(() => t.close());

  it("appends steps with stable ids, order, default labels and a continued chain", async () => {
    const a = await steps({ step_type: "wait", config_json: { duration_minutes: 1 } });
    const b = await steps({ step_type: "wait" });
    const c = await steps({ step_type: "notification", label: "tell family" });
    assert.deepEqual([a.status, b.status, c.status], [201, 201, 201]);
    assert.deepEqual([a.body.label, b.body.label, c.body.label], ["wait", "wait_2", "tell family"]);
    assert.deepEqual([a.body.order, b.body.order, c.body.order], [1, 2, 3]);
    const edges = (await t.get(`/api/v1/rules/${rule}/edges`)).body;
    assert.deepEqual(edges, [
      { source_step_id: a.body.id, source_port: "main", target_step_id: b.body.id, target_port: "main" },
      { source_step_id: b.body.id, source_port: "main", target_step_id: c.body.id, target_port: "main" },
    ]);
    assert.equal(c.body.config_json.alert_level, "warning", "defaults are filled in");
  });

  it("validates step config, templates and expressions, naming the field and position", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ step_type: "condtion" }, /step_type: unknown step type 'condtion'; did you mean 'condition'\?/],
      [{ step_type: "wait", config_json: { duration_minutes: "soon" } }, /config_json\.duration_minutes: /],
      [{ step_type: "wait", config_json: { hours: 1 } }, /config_json\.hours: unknown field/],
      [{ step_type: "notification", config_json: { alert_level: "panic" } }, /config_json\.alert_level: /],
      [{ step_type: "condition", config_json: { expression: "count > (3" } }, /config_json\.expression: .* at \d+/],
      [{ step_type: "notification", config_json: { message_template: "Hello {{name" } }, /config_json\.message_template: /],
      [{ step_type: "wait", label: "" }, /^label: /],
      [{ step_type: "wait", config_json: [] }, /config_json: must be an object/],
    ];
    for (const [body, detail] of cases) {
      const res = await steps(body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.body.detail, detail);
    }
    assert.deepEqual((await t.get(`/api/v1/rules/${rule}/steps`)).body, [], "nothing was written");
  });

  it("refuses a second step with the same label", async () => {
    await steps({ step_type: "wait", label: "pause" });
    const res = await steps({ step_type: "wait", label: "Pause" });
    assert.equal(res.status, 422);
    assert.match(res.body.detail, /already labelled/);
  });

  it("updates a step: config, label, enabled (a disabled node), position and branches", async () => {
    const cond = (await steps({ step_type: "condition", label: "fell?", config_json: { expression: "x > 1" } })).body;
    const yes = (await steps({ step_type: "notification", label: "alarm" })).body;
    const no = (await steps({ step_type: "wait", label: "later" })).body;
    const res = await t.request("PUT", `/api/v1/rules/${rule}/steps/${cond.id}`, {
      body: {
        config_json: { expression: "person_detections.count > 0" },
        next_step_on_true: yes.id,
        next_step_on_false: no.id,
        position_x: 400,
        position_y: 222,
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.next_step_on_true, yes.id);
    assert.equal(res.body.next_step_on_false, no.id);
    assert.equal(res.body.position_y, 222);
    const off = await t.request("PUT", `/api/v1/rules/${rule}/steps/${no.id}`, { body: { enabled: false } });
    assert.equal(off.body.enabled, false);
    const node = JSON.parse((await t.app.ctx.db("flow_nodes").where({ type: "care-wait" }).first()).json);
    assert.equal(node.d, true, "a disabled step is a disabled node");
    const bad = await t.request("PUT", `/api/v1/rules/${rule}/steps/${yes.id}`, { body: { next_step_on_true: no.id } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /next_step_on_true: a notification step has no 'true' port/);
  });

  it("deletes a step and renumbers the rest", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await steps({ step_type: "wait" })).body.id);
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule}/steps/${ids[0]}`)).status, 204);
    const left = (await t.get(`/api/v1/rules/${rule}/steps`)).body;
    assert.deepEqual(
      left.map((s: { id: number; order: number }) => [s.id, s.order]),
      [
        [ids[1], 1],
        [ids[2], 2],
      ],
    );
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule}/steps/${ids[0]}`)).status, 404);
  });

  it("reorders steps and persists canvas positions", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await steps({ step_type: "wait" })).body.id);
    const res = await t.request("PUT", `/api/v1/rules/${rule}/steps/reorder`, {
      body: [
        { id: ids[2], order: 1 },
        { id: ids[0], order: 3 },
      ],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.map((s: { id: number }) => s.id),
      [ids[2], ids[1], ids[0]],
    );
    assert.equal((await t.request("PUT", `/api/v1/rules/${rule}/steps/reorder`, { body: [{ id: 999, order: 1 }] })).status, 422);
    const pos = await t.request("PUT", `/api/v1/rules/${rule}/steps/positions`, { body: { positions: [{ step_id: ids[1], position_x: 10, position_y: 20 }] } });
    assert.equal(pos.status, 200, pos.text);
    const moved = (await t.get(`/api/v1/rules/${rule}/steps`)).body.find((s: { id: number }) => s.id === ids[1]);
    assert.deepEqual([moved.position_x, moved.position_y], [10, 20]);
  });

  describe("PUT edges", () => {
    let s: number[];
    beforeEach(async () => {
      s = [];
      s.push((await steps({ step_type: "condition", label: "c", config_json: { expression: "a == 1" } })).body.id);
      s.push((await steps({ step_type: "wait", label: "w1" })).body.id);
      s.push((await steps({ step_type: "wait", label: "w2" })).body.id);
    });
    const put = (body: unknown) => t.request("PUT", `/api/v1/rules/${rule}/edges`, { body });

    it("replaces all edges, takes a bare array too, and collapses identical edges", async () => {
      const e = { source_step_id: s[0], source_port: "true", target_step_id: s[1], target_port: "main" };
      const res = await put([e, e, { source_step_id: s[0], source_port: "false", target_step_id: s[2] }]);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.length, 2);
      assert.deepEqual((await put({ edges: [] })).body, []);
    });

    const invalid: Array<[string, (s: number[]) => unknown, RegExp]> = [
      [
        "a port the source does not declare",
        (s) => [{ source_step_id: s[1], source_port: "true", target_step_id: s[2] }],
        /source_port: step 'w1' has no port 'true'/,
      ],
      [
        "a target that is not a step of the rule",
        (s) => [{ source_step_id: s[0], source_port: "true", target_step_id: 999 }],
        /target_step_id: step 999 is not a step of rule/,
      ],
      [
        "a cycle",
        (s) => [
          { source_step_id: s[1], source_port: "main", target_step_id: s[2] },
          { source_step_id: s[2], source_port: "main", target_step_id: s[1] },
        ],
        /cycle \('w1' → 'w2' → 'w1'\)/,
      ],
      [
        "two targets from one port",
        (s) => [
          { source_step_id: s[0], source_port: "true", target_step_id: s[1] },
          { source_step_id: s[0], source_port: "true", target_step_id: s[2] },
        ],
        /a port has one outgoing edge/,
      ],
      ["an edge into itself", (s) => [{ source_step_id: s[1], source_port: "main", target_step_id: s[1] }], /cannot feed itself/],
      ["a bad body", () => ({ edges: "all" }), /edges/],
    ];
    for (const [what, make, detail] of invalid) {
      it(`refuses ${what} with 422 and changes nothing`, async () => {
        const before = (await t.get(`/api/v1/rules/${rule}/edges`)).body;
        const res = await put(make(s));
        assert.equal(res.status, 422, res.text);
        assert.match(res.body.detail, detail);
        assert.deepEqual((await t.get(`/api/v1/rules/${rule}/edges`)).body, before);
      });
    }

    it("refuses an edge to a step of another rule", async () => {
      const other = (await t.post("/api/v1/rules", { name: "Other", trigger_type: "manual" })).body.id;
      const foreign = (await t.post(`/api/v1/rules/${other}/steps`, { step_type: "wait" })).body.id;
      const res = await put([{ source_step_id: s[1], source_port: "main", target_step_id: foreign }]);
      assert.equal(res.status, 422);
      assert.match(res.body.detail, /is not a step of rule/);
    });
  });

  it("adds and removes contexts, validated by their filter type", async () => {
    const res = await t.post(`/api/v1/rules/${rule}/contexts`, {
      context_type: "time_range",
      config: { start_time: "22:00", end_time: "06:00" },
      negate: true,
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.config, { start_time: "22:00", end_time: "06:00" });
    assert.equal(res.body.negate, true);
    const bad = await t.post(`/api/v1/rules/${rule}/contexts`, { context_type: "time_range", config: { start_time: "25:00" } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /config\.start_time/);
    const unknown = await t.post(`/api/v1/rules/${rule}/contexts`, { context_type: "time_rang" });
    assert.match(unknown.body.detail, /did you mean 'time_range'/);
    assert.equal((await t.get(`/api/v1/rules/${rule}/contexts`)).body.length, 1);
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule}/contexts/${res.body.id}`)).status, 204);
    assert.deepEqual((await t.get(`/api/v1/rules/${rule}/contexts`)).body, []);
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule}/contexts/${res.body.id}`)).status, 404);
  });

  it("adds and removes dependencies with their defaults", async () => {
    const other = (await t.post("/api/v1/rules", { name: "Breakfast", trigger_type: "manual" })).body.id;
    const res = await t.post(`/api/v1/rules/${rule}/dependencies`, { depends_on_rule_id: other });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual({ ...res.body, id: 0 }, { id: 0, rule_id: rule, depends_on_rule_id: other, lookback_minutes: 30, require_success: true });
    assert.equal((await t.post(`/api/v1/rules/${rule}/dependencies`, { depends_on_rule_id: other })).status, 409);
    assert.match((await t.post(`/api/v1/rules/${rule}/dependencies`, { depends_on_rule_id: rule })).body.detail, /cannot depend on itself/);
    assert.equal((await t.post(`/api/v1/rules/${rule}/dependencies`, { depends_on_rule_id: 999 })).status, 422);
    assert.equal((await t.get(`/api/v1/rules/${rule}`)).body.dependencies.length, 1, "GET rule embeds dependencies");
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule}/dependencies/${res.body.id}`)).status, 204);
    assert.equal((await t.request("DELETE", `/api/v1/rules/${rule}/dependencies/${res.body.id}`)).status, 404);
  });
});
