/**
 * The timeout rows of the workflow-execution state table, on the household clock: a step
 * that hangs fails at the step timeout and the run goes on; a run that outlives its
 * whole-run timeout fails. A hanging handler stands in for a slow backing service.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { standInHandler } from "../../../../../support/stand-in-handler";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { eventually } from "../../../../../support/eventually";

describe("step and run timeouts", function () {
  this.timeout(30000);
  let t: TestApp;
  let clock: ManualClock;
  let restore: () => void = () => undefined;
  let aborted = 0;
  let started = 0;

  before(async () => {
    // The hub client has no handler yet; here it hangs until aborted, like a hub that never answers.
    restore = standInHandler(
      "hub_action",
      (hctx) =>
        new Promise((_resolve, reject) => {
          started++;
          hctx.signal.addEventListener("abort", () => {
            aborted++;
            reject(new Error("aborted"));
          });
        }),
    );
    clock = new ManualClock(Date.parse("2026-06-01T08:00:00Z"));
    t = await startTestApp({ nodeRed: true, clock, settings: { pipeline: { step_timeout_seconds: 60 } } });
  });
  after(async () => {
    restore();
    await t.close();
  });

  const importRule = async (name: string, timeoutMinutes: number) => {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual", execution_timeout_minutes: timeoutMinutes },
      steps: [
        { label: "hub", step_type: "hub_action", schema_version: 1, config: { domain: "light", service: "turn_on" } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "true" } },
      ],
      edges: [{ source_label: "hub", source_port: "main", target_label: "after" }],
    });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id as number;
  };
  const status = async (id: number) => (await t.get(`/api/v1/workflows/${id}`)).body;
  /** The hub step is under way: its step timeout is armed on the clock. */
  const underWay = (n: number) => eventually(`hub step ${n} under way`, () => started >= n);
  const ended = (id: number) =>
    eventually(`run ${id} ended`, async () => {
      const run = await status(id);
      return run.status === "running" ? undefined : run;
    });

  it("fails a hanging step at 60 s and continues the run", async () => {
    const rule = await importRule("Slow hub", 5);
    const { body } = await t.post(`/api/v1/rules/${rule}/execute`);
    await underWay(1);
    clock.advance(59_000);
    // A timeout due by now fired inside advance() and aborts the handler a few microtasks later: long before this answers.
    assert.equal((await status(body.execution_id)).status, "running");
    assert.equal(aborted, 0, "not timed out at 59 s");
    clock.advance(1_000);
    const run = await ended(body.execution_id);
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(
      run.step_timings.map((s: { label: string; success: boolean; error: string | null }) => [s.label, s.success, s.error]),
      [
        ["hub", false, "timed out after 60 s"],
        ["after", true, null],
      ],
    );
  });

  it("fails a run that exceeds its whole-run timeout", async () => {
    await t.close();
    clock = new ManualClock(Date.parse("2026-06-01T08:00:00Z"));
    t = await startTestApp({ nodeRed: true, clock, settings: { pipeline: { step_timeout_seconds: 600 } } });
    aborted = 0;
    started = 0;
    const rule = await importRule("Too slow", 1);
    const { body } = await t.post(`/api/v1/rules/${rule}/execute`);
    await underWay(1);
    clock.advance(61_000);
    const run = await ended(body.execution_id);
    assert.equal(run.status, "failed");
    assert.match(run.error, /exceeded its 1-minute timeout/);
    assert.equal((await t.get("/api/v1/events?rule_name=Too%20slow")).body[0].status, "failed");
    assert.equal(aborted, 1, "the step in progress was told to stop");
  });
});
