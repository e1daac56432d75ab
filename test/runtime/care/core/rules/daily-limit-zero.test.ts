/** `max_daily_triggers: 0` is the original project's "no limit": accepted everywhere, stored as no limit. */
import assert from "node:assert/strict";
import { triggerContext } from "../../../../../runtime/care/core/pipeline/engine/types";
import { startTestApp, type TestApp } from "../../../../support/test-app";

describe("rules: max_daily_triggers 0 means no limit", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  it("imports an original bundle with 0, and the rule fires more than once a day", async () => {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Imported", trigger_type: "manual", max_daily_triggers: 0 },
      steps: [{ label: "c", step_type: "condition", schema_version: 1, config: { expression: "true" } }],
      edges: [],
    });
    assert.equal(res.status, 201, res.text);
    const rule = (await t.get(`/api/v1/rules/${res.body.rule_id}`)).body;
    assert.equal(rule.max_daily_triggers, null);
    const engine = t.app.ctx.engine!;
    for (let i = 0; i < 5; i++) {
      const fired = await engine.fire({ rule_id: rule.id, trigger: triggerContext({ trigger_type: "manual" }) });
      assert.notEqual(fired.execution_id, null, `firing ${i + 1} was held: ${JSON.stringify(fired)}`);
    }
  });

  it("accepts 0 through REST create and update, and refuses a negative limit", async () => {
    const created = await t.post("/api/v1/rules", { name: "Zero", trigger_type: "manual", max_daily_triggers: 0 });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.max_daily_triggers, null);
    const updated = await t.request("PUT", `/api/v1/rules/${created.body.id}`, { body: { max_daily_triggers: 3 } });
    assert.equal(updated.body.max_daily_triggers, 3);
    const back = await t.request("PUT", `/api/v1/rules/${created.body.id}`, { body: { max_daily_triggers: 0 } });
    assert.equal(back.status, 200, back.text);
    assert.equal(back.body.max_daily_triggers, null);
    const negative = await t.post("/api/v1/rules", { name: "Negative", trigger_type: "manual", max_daily_triggers: -1 });
    assert.equal(negative.status, 422);
    assert.match(negative.body.detail, /max_daily_triggers/);
  });
});
