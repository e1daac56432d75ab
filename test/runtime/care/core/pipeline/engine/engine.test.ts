/**
 * The engine through the real embedded Node-RED, on a controllable clock: every row of
 * the spec's workflow-execution state table that does not need a later capability.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import type { PipelineExecutionEvent } from "../../../../../../runtime/care/core/pipeline/engine/live-events";
import { allowPendingDeploy, unbuiltStep } from "../../../../../support/stand-in-handler";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { engineQuiet } from "../../../../../support/engine-quiet";
import { eventually } from "../../../../../support/eventually";

describe("pipeline engine", function () {
  this.timeout(30000);
  let t: TestApp;
  let clock: ManualClock;

  before(async () => {
    clock = new ManualClock(Date.parse("2026-06-01T08:00:00Z"));
    t = await startTestApp({ nodeRed: true, clock, settings: { app: { timezone: "Europe/Berlin" } } });
  });
  after(() => t.close());

  /** Import a rule from a compact bundle and return its id. */
  async function rule(
    name: string,
    steps: Array<Record<string, unknown>>,
    edges: Array<Record<string, unknown>> = [],
    over: Record<string, unknown> = {},
  ): Promise<number> {
    const res = await t.post("/api/v1/rules/import", { schema_version: 1, rule: { name, trigger_type: "manual", ...over }, steps, edges });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id;
  }

  const execute = async (ruleId: number): Promise<number> => {
    const res = await t.post(`/api/v1/rules/${ruleId}/execute`);
    assert.equal(res.status, 201, res.text);
    return res.body.execution_id;
  };

  /** Wait (real time; the steps here are instant) until the run reaches one of the statuses. */
  async function until(id: number, statuses: string[]): Promise<Record<string, any>> {
    return eventually(`execution ${id} ${statuses.join("/")}`, async () => {
      const run = (await t.get(`/api/v1/workflows/${id}`)).body as Record<string, any>;
      return statuses.includes(run.status) ? run : undefined;
    });
  }

  it("runs a rule to completed, with timings, ports, skipped steps and an ignored event log", async () => {
    const id = await rule(
      "Branches",
      [
        { label: "check", step_type: "condition", schema_version: 1, config: { expression: "trigger_type == 'manual'" } },
        { label: "yes", step_type: "condition", schema_version: 1, config: { expression: "system.timezone == 'Europe/Berlin'" } },
        { label: "no", step_type: "condition", schema_version: 1, config: { expression: "true" } },
      ],
      [
        { source_label: "check", source_port: "true", target_label: "yes" },
        { source_label: "check", source_port: "false", target_label: "no" },
      ],
    );
    const exec = await execute(id);
    const run = await until(exec, ["completed", "failed"]);
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(
      run.step_timings.map((s: { label: string; success: boolean }) => [s.label, s.success]),
      [
        ["check", true],
        ["yes", true],
      ],
    );
    assert.equal(run.pipeline_data.condition.result, true, "the last condition's output");
    assert.equal(run.pipeline_data.system.timezone, "Europe/Berlin");
    assert.equal(run.pipeline_data.system.local_time_24h, "10:00", "the system object is localized");
    assert.equal(run.trigger_context.trigger_type, "manual");
    // Started by hand, by the key that asked: the spec's fields as they are, two optional ones beside them.
    assert.equal(run.started_by_hand, true);
    assert.equal(run.started_by, "test admin");
    const envelope = (await t.get(`/api/v1/pipeline/runs/${exec}`)).body;
    assert.deepEqual([envelope.trigger_type, envelope.started_by_hand, envelope.started_by], ["manual", true, "test admin"]);
    const detail = (await t.get(`/api/v1/workflows/${exec}/detail`)).body;
    assert.equal(detail.trigger_summary, "started by hand by test admin");
    assert.equal(detail.path.nodes[0].text, "started by hand by test admin", "the trigger node on the canvas");
    const steps = detail.graph.steps.map((s: { id: number; label: string }) => s);
    const no = steps.find((s: { label: string }) => s.label === "no");
    assert.deepEqual(detail.skipped_nodes, [no.id]);
    assert.ok(detail.activated_ports.includes(`${steps[0].id}:true`));
    assert.equal(detail.timeline.find((s: { label: string }) => s.label === "no").status, "skipped");
    assert.equal(detail.can_cancel, false);
    const log = (await t.get("/api/v1/events?rule_name=Branches")).body[0];
    assert.equal(log.status, "ignored", "no step marked cool-off");
    assert.equal(log.execution_id, exec);
  });

  it("finalises the event log completed when a step marks cool-off", async () => {
    const id = await rule("Cooloff", [{ label: "c", step_type: "condition", schema_version: 1, config: { expression: "true", trigger_cooloff: true } }]);
    const exec = await execute(id);
    assert.equal((await until(exec, ["completed"])).pipeline_data._cooloff_triggered, true);
    assert.equal((await t.get("/api/v1/events?rule_name=Cooloff")).body[0].status, "completed");
  });

  describe("a step type whose behaviour is not built", () => {
    let restore: () => void;
    before(() => (restore = unbuiltStep("hub_action", "the hub client")));
    after(() => restore());

    it("refuses to save a rule with a step whose behaviour is not built, naming what it lacks", async () => {
      const res = await t.post("/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: "Cannot run", trigger_type: "manual" },
        steps: [{ label: "light on", step_type: "hub_action", schema_version: 1, config: { domain: "light", service: "turn_on" } }],
        edges: [],
      });
      assert.equal(res.status, 422, res.text);
      assert.match(JSON.stringify(res.body), /hub_action cannot run yet: it needs the hub client/);
    });

    it("fails a run at a step whose behaviour is not built (a rule saved before that was checked), naming what it lacks", async () => {
      const allow = allowPendingDeploy("hub_action");
      let id: number;
      try {
        id = await rule("Needs hub", [{ label: "light on", step_type: "hub_action", schema_version: 1, config: { domain: "light", service: "turn_on" } }]);
      } finally {
        allow();
      }
      const exec = await execute(id);
      const run = await until(exec, ["failed", "completed"]);
      assert.equal(run.status, "failed");
      assert.match(run.error, /light on.*hub_action cannot run yet: it needs/);
      assert.equal((await t.get("/api/v1/events?rule_name=Needs%20hub")).body[0].status, "failed");
    });
  });

  it("parks a run at a wait with resume_at and resumes it when the time comes", async () => {
    const id = await rule(
      "Waits",
      [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 10 } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "wait_started != null" } },
      ],
      [{ source_label: "pause", source_port: "main", target_label: "after" }],
    );
    const events: PipelineExecutionEvent[] = [];
    const off = t.app.ctx.engine!.live.subscribe((e) => events.push(e));
    const exec = await execute(id);
    const waiting = await until(exec, ["waiting"]);
    assert.equal(waiting.resume_at, new Date(clock.now() + 10 * 60_000).toISOString());
    assert.deepEqual(
      (await t.get("/api/v1/pipeline/runs?status=active")).body.map((r: { execution_id: number }) => r.execution_id),
      [exec],
    );
    clock.advance(9 * 60_000);
    await engineQuiet(t.app.engine);
    assert.equal((await t.get(`/api/v1/workflows/${exec}`)).body.status, "waiting", "not before its time");
    clock.advance(60_000);
    const done = await until(exec, ["completed", "failed"]);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.deepEqual(
      done.step_timings.map((s: { label: string }) => s.label),
      ["pause", "after"],
    );
    off();
    const mine = events.filter((e) => e.execution_id === exec).map((e) => e.event_type);
    assert.deepEqual(mine, [
      "pipeline_started",
      "step_started",
      "step_completed",
      "pipeline_waiting",
      "pipeline_resumed",
      "step_started",
      "step_completed",
      "pipeline_completed",
    ]);
    const seq = events.map((e) => e.sequence);
    assert.deepEqual(
      seq,
      [...seq].sort((a, b) => a - b),
      "sequence numbers increase",
    );
  });

  it("reads a parked run back shortly before its time but resumes it only then; a cancel meanwhile stops it", async () => {
    const id = await rule(
      "Read ahead",
      [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 10 } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "true" } },
      ],
      [{ source_label: "pause", source_port: "main", target_label: "after" }],
    );
    const kept = await execute(id);
    const dropped = await execute(id);
    await until(kept, ["waiting"]);
    await until(dropped, ["waiting"]);
    clock.advance(10 * 60_000 - 200);
    await engineQuiet(t.app.engine);
    for (const exec of [kept, dropped]) {
      const run = (await t.get(`/api/v1/workflows/${exec}`)).body;
      assert.equal(run.status, "waiting", "read back, not resumed");
      assert.equal(run.step_timings.length, 1);
    }
    assert.equal((await t.post(`/api/v1/workflows/${dropped}/cancel`)).body.status, "cancelled");
    clock.advance(200);
    assert.equal((await until(kept, ["completed", "failed"])).status, "completed");
    await engineQuiet(t.app.engine);
    const cancelled = (await t.get(`/api/v1/workflows/${dropped}`)).body;
    assert.equal(cancelled.status, "cancelled");
    assert.deepEqual(
      cancelled.step_timings.map((s: { label: string }) => s.label),
      ["pause"],
      "the cancelled run never went on",
    );
  });

  it("cancels a waiting run and its pending resume; cancelling a finished run is 409", async () => {
    const id = await rule("Cancel me", [{ label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 5 } }]);
    const exec = await execute(id);
    await until(exec, ["waiting"]);
    const res = await t.post(`/api/v1/workflows/${exec}/cancel`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, "cancelled");
    clock.advance(6 * 60_000);
    await engineQuiet(t.app.engine);
    assert.equal((await t.get(`/api/v1/workflows/${exec}`)).body.status, "cancelled", "the resume was cancelled too");
    const again = await t.post(`/api/v1/workflows/${exec}/cancel`);
    assert.equal(again.status, 409);
    assert.match(again.body.detail, /already cancelled/);
    assert.equal((await t.post("/api/v1/workflows/99999/cancel")).status, 404);
  });

  it("reruns a run from the beginning with the original trigger context", async () => {
    const id = await rule("Rerun", [{ label: "c", step_type: "condition", schema_version: 1, config: { expression: "true" } }]);
    const first = await execute(id);
    await until(first, ["completed"]);
    const res = await t.post(`/api/v1/workflows/${first}/rerun`);
    assert.equal(res.status, 201, res.text);
    assert.notEqual(res.body.execution_id, first);
    const second = await until(res.body.execution_id, ["completed"]);
    assert.deepEqual(second.trigger_context, (await t.get(`/api/v1/workflows/${first}`)).body.trigger_context);
    const detail = (await t.get(`/api/v1/workflows/${res.body.execution_id}/detail`)).body;
    assert.equal(detail.trigger_summary, `started again by hand (a copy of run #${first})`, "not the first run's starter");
    assert.equal(second.started_by, undefined);
  });

  it("keeps a waiting run across a REST redeploy of its rule and resumes it on the new flow", async () => {
    const id = await rule(
      "Redeploy",
      [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 3 } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "true" } },
      ],
      [{ source_label: "pause", source_port: "main", target_label: "after" }],
    );
    const exec = await execute(id);
    await until(exec, ["waiting"]);
    const upd = await t.request("PUT", `/api/v1/rules/${id}`, { body: { description: "changed while a run waits" } });
    assert.equal(upd.status, 200, upd.text);
    const steps = (await t.get(`/api/v1/rules/${id}/steps`)).body;
    assert.equal((await t.request("PUT", `/api/v1/rules/${id}/steps/${steps[1].id}`, { body: { label: "after (edited)" } })).status, 200);
    clock.advance(3 * 60_000);
    const done = await until(exec, ["completed", "failed"]);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.equal(done.step_timings.length, 2);
  });

  it("answers 404 for unknown executions and rules, 409 for a disabled rule", async () => {
    assert.equal((await t.get("/api/v1/workflows/99999")).status, 404);
    assert.equal((await t.get("/api/v1/workflows/99999/detail")).status, 404);
    assert.equal((await t.post("/api/v1/rules/99999/execute")).status, 404);
    const id = await rule("Off", [{ label: "c", step_type: "condition", schema_version: 1, config: { expression: "true" } }], [], { enabled: false });
    const res = await t.post(`/api/v1/rules/${id}/execute`);
    assert.equal(res.status, 409);
    assert.match(res.body.detail, /disabled/);
  });
});
