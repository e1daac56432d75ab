import assert from "node:assert/strict";
import type { FilterInput } from "../../../../../../nodes/_kit/handler-types";
import { triggerContext } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { checkGates, checkGatesById, GATE_ORDER, ruleGates } from "../../../../../../runtime/care/core/pipeline/gates/check-gates";
import type { FilterLookup } from "../../../../../../runtime/care/core/pipeline/gates/filters.gate";
import { findRule } from "../../../../../../runtime/care/core/rules/rule-read";
import { captureLog, type CapturedLog } from "../../../../../support/capture-log";
import type { TestApp } from "../../../../../support/test-app";
import { gateRule, logRun, minutesBefore, NOW, startGateApp } from "./gate-fixture";

describe("gates: checkGates", () => {
  let t: TestApp;
  let captured: CapturedLog;
  const seen: FilterInput[] = [];
  const filters: FilterLookup = () => ({
    handler: async (_ctx, input, config: { pass: boolean }) => {
      seen.push(input);
      return { pass: config.pass, reason: config.pass ? undefined : "room: not here" };
    },
  });
  const trigger = triggerContext({ trigger_type: "cron", sensor_id: "hall_pir", room_name: "Hall" });
  const roomContext = (pass: boolean) => ({ id: 1, rule_id: 1, context_type: "room", config: { pass }, negate: false });
  const dependency = { id: 1, rule_id: 1, depends_on_rule_id: 2, lookback_minutes: 30, require_success: true };

  before(async () => {
    captured = captureLog("debug");
    ({ t } = await startGateApp("UTC", captured.log));
  });
  after(() => t.close());
  beforeEach(async () => {
    await t.app.ctx.db("workflow_executions").delete();
    captured.lines.length = 0;
    seen.length = 0;
  });

  it("applies filters, dependencies, cool-off and daily limit in that order; the first hold is the answer", async () => {
    assert.deepEqual(GATE_ORDER, ["filters", "dependencies", "cool_off", "daily_limit"]);
    await logRun(t.app.ctx.db, 1, "completed", minutesBefore(NOW, 5)); // cool-off and daily limit hold
    const all = { contexts: [roomContext(false)], dependencies: [dependency], cool_off_minutes: 30, max_daily_triggers: 1 };
    const reasons: string[] = [];
    for (const r of [
      all,
      { ...all, contexts: [roomContext(true)] },
      { ...all, contexts: [], dependencies: [] },
      { ...all, contexts: [], dependencies: [], cool_off_minutes: 0 },
    ]) {
      const result = await checkGates(t.app.ctx, gateRule(r), trigger, { services: t.app.services, lookup: filters });
      reasons.push(result.pass ? "pass" : result.reason.split(":")[0]);
    }
    assert.deepEqual(reasons, ["room", "dependency", "cool-off", "daily limit"]);
    assert.deepEqual(await checkGates(t.app.ctx, gateRule({ max_daily_triggers: 2 }), trigger, { services: t.app.services, lookup: filters }), {
      pass: true,
    });
  });

  it("passes the trigger to the filters and logs a hold at debug level only", async () => {
    const r = await checkGates(t.app.ctx, gateRule({ contexts: [roomContext(false)] }), trigger, { services: t.app.services, lookup: filters });
    assert.deepEqual(r, { pass: false, reason: "room: not here" });
    assert.deepEqual(seen[0].trigger, trigger);
    const holds = captured.lines.filter((l) => l.msg === "rule held");
    assert.equal(holds.length, 1);
    assert.equal(holds[0].level, 20);
    assert.equal(holds[0].gate, "filters");
    assert.equal(captured.lines.filter((l) => Number(l.level) > 20).length, 0, "nothing above debug");
  });

  it("reads a rule's contexts, dependencies and trigger settings from the flows (checkGatesById, ruleGates)", async () => {
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" });
    await t.post("/api/v1/rooms", { name: "Hall" });
    const { body: other } = await t.post("/api/v1/rules", { name: "Other", trigger_type: "manual" });
    const { body: rule } = await t.post("/api/v1/rules", { name: "Hall watch", trigger_type: "manual", cool_off_minutes: 15 });
    assert.equal((await t.post(`/api/v1/rules/${rule.id}/contexts`, { context_type: "room", config: { room_names: ["Hall"] } })).status, 201);
    assert.equal((await t.post(`/api/v1/rules/${rule.id}/dependencies`, { depends_on_rule_id: other.id, require_success: false })).status, 201);
    const byConfig: FilterLookup = () => ({
      handler: async (_c, input, config: { room_names: string[] }) => ({ pass: config.room_names.includes(input.trigger.room_name ?? "") }),
    });

    assert.deepEqual(await checkGatesById(t.app.ctx, rule.id, trigger, { services: t.app.services, lookup: byConfig }), { pass: true });
    await logRun(t.app.ctx.db, other.id, "completed", minutesBefore(NOW, 10));
    const held = await checkGatesById(t.app.ctx, rule.id, trigger, { services: t.app.services, lookup: byConfig });
    assert.match(held.pass ? "" : held.reason, new RegExp(`^dependency: rule ${other.id} 'rule ${other.id}' completed`));

    await t.app.ctx.db("workflow_executions").delete();
    await logRun(t.app.ctx.db, rule.id, "completed", minutesBefore(NOW, 10));
    const { flows, index } = await t.app.ctx.flows.snapshot();
    const check = ruleGates(t.app.ctx, { services: t.app.services, lookup: byConfig });
    const r = await check({ rule_id: rule.id, trigger }, findRule(flows, index, rule.id));
    assert.match(r.pass ? "" : r.reason, /^cool-off: .*15-minute cool-off/);
    const kitchen = await check({ rule_id: rule.id, trigger: { ...trigger, room_name: "Kitchen" } }, findRule(flows, index, rule.id));
    assert.deepEqual(kitchen, { pass: false, reason: "context room: did not match" });
  });

  it("waits for the runs still being written of the rule and of the rules it depends on, only when a gate reads them", async () => {
    const { body: morning } = await t.post("/api/v1/rules", { name: "Morning check", trigger_type: "manual" });
    const { body: calm } = await t.post("/api/v1/rules", { name: "Calm", trigger_type: "manual" });
    const { body: cooled } = await t.post("/api/v1/rules", { name: "Cooled", trigger_type: "manual", cool_off_minutes: 15 });
    const { body: limited } = await t.post("/api/v1/rules", { name: "Limited", trigger_type: "manual", max_daily_triggers: 1 });
    const { body: after } = await t.post("/api/v1/rules", { name: "After the check", trigger_type: "manual" });
    assert.equal((await t.post(`/api/v1/rules/${after.id}/dependencies`, { depends_on_rule_id: morning.id, require_success: true })).status, 201);
    // The engine's group commit: a run already finished may still be queued for writing. Here
    // the queue holds one completed run of each rule the wait is for, written when it is waited on.
    const waited: number[][] = [];
    const queued = {
      store: {
        whenRulesWritten: async (ids: number[]) => {
          waited.push([...ids]);
          for (const id of ids) await logRun(t.app.ctx.db, id, "completed", minutesBefore(NOW, 1));
        },
      },
    };
    const ctx = Object.create(t.app.ctx, { engine: { value: queued } }) as typeof t.app.ctx;
    const check = ruleGates(ctx, { services: t.app.services, lookup: filters });
    const { flows, index } = await t.app.ctx.flows.snapshot();
    const fire = (id: number) => check({ rule_id: id, trigger }, findRule(flows, index, id));
    assert.deepEqual(await fire(calm.id), { pass: true });
    assert.deepEqual(waited, [], "no gate reads runs: nothing to wait for");
    const cooling = await fire(cooled.id);
    assert.match(cooling.pass ? "" : cooling.reason, /^cool-off: /, "the run still being written holds the cool-off");
    const limit = await fire(limited.id);
    assert.match(limit.pass ? "" : limit.reason, /^daily limit: 1 of 1/, "and counts for the daily limit");
    assert.deepEqual(await fire(after.id), { pass: true }, "the morning check's run, still being written, counts as done");
    assert.deepEqual(waited, [[cooled.id], [limited.id], [morning.id]]);
  });
});
