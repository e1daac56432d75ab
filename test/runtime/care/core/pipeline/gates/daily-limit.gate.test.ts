import assert from "node:assert/strict";
import type { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { dailyLimitGate, runsToday } from "../../../../../../runtime/care/core/pipeline/gates/daily-limit.gate";
import type { TestApp } from "../../../../../support/test-app";
import { logRun, startGateApp } from "./gate-fixture";

// Asia/Kolkata is UTC+05:30: local midnight of 22 November is 2026-11-21T18:30Z.
describe("gates: daily limit (Asia/Kolkata)", () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => ({ t, clock } = await startGateApp("Asia/Kolkata")));
  after(() => t.close());
  beforeEach(async () => {
    await t.app.ctx.db("workflow_executions").delete();
    clock.set(Date.parse("2026-11-22T04:00:00Z")); // 09:30 local
  });

  const gate = (max_daily_triggers: number | null, id = 1) => dailyLimitGate(t.app.ctx, { id, max_daily_triggers });

  it("passes without a limit", async () => {
    for (let i = 0; i < 3; i++) await logRun(t.app.ctx.db, 1, "completed", "2026-11-22T03:00:00Z");
    assert.deepEqual(await gate(null), { pass: true });
  });

  it("counts runs of any status since local midnight, not UTC midnight", async () => {
    await logRun(t.app.ctx.db, 1, "completed", "2026-11-21T18:29:59Z"); // 23:59:59 local, yesterday
    await logRun(t.app.ctx.db, 1, "ignored", "2026-11-21T18:30:00Z"); // 00:00 local, today
    await logRun(t.app.ctx.db, 1, "failed", "2026-11-21T20:00:00Z"); // before UTC midnight, yet today locally
    await logRun(t.app.ctx.db, 1, "processing", "2026-11-22T03:59:00Z");
    await logRun(t.app.ctx.db, 2, "completed", "2026-11-22T01:00:00Z"); // another rule
    assert.equal(await runsToday(t.app.ctx, 1), 3);
    assert.deepEqual(await gate(4), { pass: true });
    const held = await gate(3);
    assert.equal(held.pass, false);
    assert.equal(held.pass ? "" : held.reason, "daily limit: 3 of 3 runs today (Asia/Kolkata); resets at local midnight");
  });

  it("resets at local midnight", async () => {
    await logRun(t.app.ctx.db, 1, "completed", "2026-11-22T10:00:00Z"); // 15:30 local
    clock.set(Date.parse("2026-11-22T18:29:59Z")); // 23:59:59 local
    assert.equal((await gate(1)).pass, false);
    clock.set(Date.parse("2026-11-22T18:30:00Z")); // 00:00 local, 23 November
    assert.deepEqual(await gate(1), { pass: true });
  });
});
