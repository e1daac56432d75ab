import assert from "node:assert/strict";
import { coolOffGate } from "../../../../../../runtime/care/core/pipeline/gates/cool-off.gate";
import type { TestApp } from "../../../../../support/test-app";
import { logRun, minutesBefore, NOW, startGateApp } from "./gate-fixture";

describe("gates: cool-off", () => {
  let t: TestApp;
  before(async () => ({ t } = await startGateApp()));
  after(() => t.close());
  beforeEach(() => t.app.ctx.db("workflow_executions").delete());

  const gate = (cool_off_minutes: number, id = 1) => coolOffGate(t.app.ctx, { id, cool_off_minutes });

  it("passes when the rule has no cool-off, even right after a completed run", async () => {
    await logRun(t.app.ctx.db, 1, "completed", minutesBefore(NOW, 1));
    assert.deepEqual(await gate(0), { pass: true });
  });

  it("a cool-off of 0 never holds, even with a run completed this very instant", async () => {
    await logRun(t.app.ctx.db, 1, "completed", NOW);
    assert.deepEqual(await gate(0), { pass: true });
  });

  it("holds within cool_off_minutes of a completed run, saying when it ends", async () => {
    await logRun(t.app.ctx.db, 1, "completed", minutesBefore(NOW, 10));
    const r = await gate(30);
    assert.equal(r.pass, false);
    assert.match(
      r.pass ? "" : r.reason,
      /^cool-off: last completed run at 2026-11-22T03:50:00\.000Z; 30-minute cool-off ends at 2026-11-22T04:20:00\.000Z \(20 min left\)$/,
    );
  });

  it("passes once the window is over", async () => {
    await logRun(t.app.ctx.db, 1, "completed", minutesBefore(NOW, 31));
    await logRun(t.app.ctx.db, 1, "completed", minutesBefore(NOW, 30));
    assert.deepEqual(await gate(30), { pass: true });
  });

  it("ignores ignored, failed and processing runs: only completed ones consume the window", async () => {
    for (const status of ["ignored", "failed", "processing"]) await logRun(t.app.ctx.db, 1, status, minutesBefore(NOW, 5));
    assert.deepEqual(await gate(30), { pass: true });
    await logRun(t.app.ctx.db, 1, "completed", minutesBefore(NOW, 25));
    assert.equal((await gate(30)).pass, false);
  });

  it("counts only this rule's runs", async () => {
    await logRun(t.app.ctx.db, 2, "completed", minutesBefore(NOW, 5));
    assert.deepEqual(await gate(30, 1), { pass: true });
    assert.equal((await gate(30, 2)).pass, false);
  });
});
