/**
 * Runs are written by group commit, and nobody can tell: the API answers with runs that can
 * be read at once, gates count runs whose rows are still queued, and a step that acts on the
 * world runs only once its run's row is durable.
 */
import assert from "node:assert/strict";
import { snapshotRule } from "../../../../../../runtime/care/core/pipeline/engine/graph-snapshot";
import { newRunState } from "../../../../../../runtime/care/core/pipeline/engine/run-state";
import { triggerContext } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { findRule } from "../../../../../../runtime/care/core/rules/rule-read";
import { standInHandler } from "../../../../../support/stand-in-handler";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { eventually } from "../../../../../support/eventually";

describe("runs written by group commit", function () {
  this.timeout(30000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  const importRule = async (name: string, rule: Record<string, unknown>, steps: Array<Record<string, unknown>>) => {
    const res = await t.post("/api/v1/rules/import", { schema_version: 1, rule: { name, trigger_type: "manual", ...rule }, steps });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id as number;
  };
  const condition = { label: "c", step_type: "condition", schema_version: 1, config: { expression: "true", trigger_cooloff: true } };

  it("answers an execute with a run that can be read at once, with its event log", async () => {
    const id = await importRule("Read at once", {}, [condition]);
    for (let i = 0; i < 5; i++) {
      const { body } = await t.post(`/api/v1/rules/${id}/execute`);
      const run = await t.get(`/api/v1/workflows/${body.execution_id}`);
      assert.equal(run.status, 200, run.text);
      assert.equal(run.body.rule_id, id);
    }
    const logs = (await t.get(`/api/v1/events?rule_name=Read%20at%20once`)).body as Array<{ execution_id: number }>;
    assert.equal(logs.length, 5);
  });

  it("shows a run whose row is still queued in every read: the run, the list, the event logs", async () => {
    const id = await importRule("Queued", {}, [condition]);
    const { flows, index } = await t.app.ctx.flows.snapshot();
    const graph = snapshotRule(findRule(flows, index, id));
    const started = new Date().toISOString();
    // A run the engine has handed an id but not written yet (its group commit waits 20 ms).
    const run = t.app.engine!.store.create(newRunState(graph, triggerContext({ trigger_type: "manual" }), {}, started, Date.now(), null));
    const one = await t.get(`/api/v1/workflows/${run.id}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.status, "running");
    const another = t.app.engine!.store.create(newRunState(graph, triggerContext({ trigger_type: "manual" }), {}, started, Date.now(), null));
    assert.ok((await t.get(`/api/v1/workflows?rule_id=${id}`)).body.some((r: { id: number }) => r.id === another.id));
    const third = t.app.engine!.store.create(newRunState(graph, triggerContext({ trigger_type: "manual" }), {}, started, Date.now(), null));
    assert.ok((await t.get("/api/v1/events?rule_name=Queued")).body.some((l: { execution_id: number }) => l.execution_id === third.id));
  });

  it("holds firings past the daily limit even when the earlier runs are not written yet", async () => {
    const id = await importRule("Twice a day", { max_daily_triggers: 2 }, [condition]);
    const engine = t.app.ctx.engine!;
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await engine.fire({ rule_id: id, trigger: triggerContext({ trigger_type: "manual" }) }));
    assert.equal(results.filter((r) => r.execution_id !== null).length, 2);
    assert.match((results[2] as { reason: string }).reason, /daily/i);
  });

  it("runs a step that acts on the world only once its run's row is in the store", async () => {
    let rowAtStep: unknown = "not run";
    const restore = standInHandler("hub_action", async (_hctx, input) => {
      rowAtStep = await t.app.ctx.db("workflow_executions").where({ id: input.execution_id }).first("id", "status");
      return { data: {} };
    });
    try {
      const id = await importRule("Act", {}, [{ label: "hub", step_type: "hub_action", schema_version: 1, config: { domain: "light", service: "turn_on" } }]);
      const started = await t.app.ctx.engine!.fire({ rule_id: id, trigger: triggerContext({ trigger_type: "manual" }), skip_gates: true });
      await eventually("the step to run", () => rowAtStep !== "not run");
      assert.deepEqual(rowAtStep, { id: started.execution_id, status: "running" });
    } finally {
      restore();
    }
  });
});
