import assert from "node:assert/strict";
import { dependenciesGate } from "../../../../../../runtime/care/core/pipeline/gates/dependencies.gate";
import type { DependencyView } from "../../../../../../runtime/care/core/rules/rule-model";
import type { TestApp } from "../../../../../support/test-app";
import { logRun, minutesBefore, NOW, startGateApp } from "./gate-fixture";

describe("gates: dependencies", () => {
  let t: TestApp;
  let morning: number;
  before(async () => {
    ({ t } = await startGateApp());
    morning = (await t.post("/api/v1/rules", { name: "Morning check", trigger_type: "manual" })).body.id;
  });
  after(() => t.close());
  beforeEach(() => t.app.ctx.db("workflow_executions").delete());

  const dep = (require_success: boolean, lookback_minutes = 30): DependencyView => ({
    id: 1,
    rule_id: 99,
    depends_on_rule_id: morning,
    lookback_minutes,
    require_success,
  });
  const gate = (...dependencies: DependencyView[]) => dependenciesGate(t.app.ctx, { dependencies });

  it("a run exactly lookback_minutes ago still counts, either way", async () => {
    await logRun(t.app.ctx.db, morning, "completed", minutesBefore(NOW, 30));
    assert.deepEqual(await gate(dep(true)), { pass: true }, "require_success: the morning check did run");
    assert.equal((await gate(dep(false))).pass, false, "without: it ran, so this one holds");
  });

  it("passes a rule without dependencies", async () => {
    assert.deepEqual(await gate(), { pass: true });
  });

  it("require_success: passes when the other rule completed within the lookback", async () => {
    await logRun(t.app.ctx.db, morning, "completed", minutesBefore(NOW, 20), "Morning check");
    assert.deepEqual(await gate(dep(true)), { pass: true });
  });

  it("require_success: holds when it did not, naming the rule; ignored or too old runs do not count", async () => {
    await logRun(t.app.ctx.db, morning, "ignored", minutesBefore(NOW, 5), "Morning check");
    await logRun(t.app.ctx.db, morning, "completed", minutesBefore(NOW, 45), "Morning check");
    const r = await gate(dep(true));
    assert.deepEqual(r, { pass: false, reason: `dependency: rule ${morning} 'Morning check' has not completed in the last 30 minutes` });
    assert.deepEqual(await gate(dep(true, 60)), { pass: true });
  });

  it("require_success false: holds when the other rule completed within the lookback", async () => {
    await logRun(t.app.ctx.db, morning, "completed", minutesBefore(NOW, 10), "Morning check");
    const r = await gate(dep(false));
    assert.equal(r.pass, false);
    assert.equal(r.pass ? "" : r.reason, `dependency: rule ${morning} 'Morning check' completed at 2026-11-22T03:50:00.000Z, within the last 30 minutes`);
    assert.deepEqual(await gate(dep(false, 5)), { pass: true });
  });

  it("require_success false: passes when it has not completed", async () => {
    await logRun(t.app.ctx.db, morning, "failed", minutesBefore(NOW, 10), "Morning check");
    assert.deepEqual(await gate(dep(false)), { pass: true });
  });

  it("needs every dependency to pass", async () => {
    await logRun(t.app.ctx.db, morning, "completed", minutesBefore(NOW, 10), "Morning check");
    const other: DependencyView = { id: 2, rule_id: 99, depends_on_rule_id: 4242, lookback_minutes: 30, require_success: true };
    assert.deepEqual(await gate(dep(true), other), { pass: false, reason: "dependency: rule 4242 has not completed in the last 30 minutes" });
  });
});
