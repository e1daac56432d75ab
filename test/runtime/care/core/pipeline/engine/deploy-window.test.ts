/**
 * A deploy (the editor's, a rule saved over REST, another instance's notice) stops the flows
 * for a moment before it starts the new ones. A rule fired then, a wait that falls due then, or
 * a step that ends then waits for the new flows and the run goes on, where it used to fail
 * ("the rule's flow is not running", "the step a wait was parked at is no longer in the rule",
 * "step node … was removed by a deploy while the run was at it").
 */
import assert from "node:assert/strict";
import type { EventEmitter } from "node:events";
import { nodeRedHost } from "../../../../../../runtime/platform/nodered/host";
import { triggerContext } from "../../../../../../runtime/care/core/pipeline/engine/types";
import type { FireResult } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { standInHandler } from "../../../../../support/stand-in-handler";
import { eventually } from "../../../../../support/eventually";

describe("a rule fired in the middle of a deploy", function () {
  this.timeout(30_000);
  let t: TestApp;
  const clock = new ManualClock(Date.now());

  before(async () => {
    t = await startTestApp({ nodeRed: true, clock });
  });
  const ended = (exec: number) =>
    eventually(`run ${exec} to end`, async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return ["completed", "failed"].includes(r.status) ? r : undefined;
    });
  after(() => t.close());

  it("waits for the new flows to run, then runs, instead of failing", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Check on Rose", trigger_type: "manual" },
      steps: [{ label: "check", step_type: "condition", schema_version: 1, config: { expression: "true" } }],
    });
    assert.equal(imported.status, 201, imported.text);
    const ruleId = imported.body.rule_id as number;
    // Node-RED's own events: fired when the old flows have stopped and the new ones are not started yet.
    const events = (nodeRedHost as unknown as { red: { events: EventEmitter } }).red.events;
    const fired = new Promise<FireResult>((resolve, reject) =>
      events.once("flows:stopped", () => {
        t.app.ctx.engine!.fire({ rule_id: ruleId, trigger: triggerContext({ trigger_type: "manual" }), skip_gates: true }).then(resolve, reject);
      }),
    );
    await nodeRedHost.reloadFlows();
    const result = await fired;
    assert.ok(result.execution_id !== null, JSON.stringify(result));
    const run = await ended(result.execution_id as number);
    assert.equal(run.status, "completed", JSON.stringify(run.error ?? run));
  });

  /**
   * Holds the flows away (a deploy that keeps them stopped: no node is there) while `happen`
   * runs; the run must not fail meanwhile, and must complete once they are back.
   */
  const completesAfterFlowsAway = async (exec: number, happen: () => void) => {
    const host = nodeRedHost as unknown as { getNode?: () => undefined; deployStarts(): void; deployEnds(): void };
    let looked = 0;
    host.getNode = () => {
      looked++;
      return undefined;
    };
    host.deployStarts();
    try {
      happen();
      // The engine looked for the step's node and found it away: the old code failed the run right there.
      await eventually("the engine to look for the step's node", () => looked > 0);
      assert.notEqual((await t.get(`/api/v1/workflows/${exec}`)).body.status, "failed", "not failed while the flows are away");
    } finally {
      delete host.getNode;
      host.deployEnds();
    }
    const run = await ended(exec);
    assert.equal(run.status, "completed", JSON.stringify(run.error ?? run));
    return run;
  };

  it("resumes a wait that falls due while the flows are being replaced, once they run", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Look in later", trigger_type: "manual" },
      steps: [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 10 } },
        { label: "after", step_type: "condition", schema_version: 1, config: { expression: "true" } },
      ],
      edges: [{ source_label: "pause", source_port: "main", target_label: "after" }],
    });
    assert.equal(imported.status, 201, imported.text);
    const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
    await eventually("the run to park", async () => (await t.get(`/api/v1/workflows/${exec}`)).body.status === "waiting");
    await completesAfterFlowsAway(exec, () => clock.advance(10 * 60_000 + 1000));
  });

  it("sends a step's result on once the flows run again, when the step ended while they were away", async () => {
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let entered = false;
    const restore = standInHandler("hub_action", async () => {
      entered = true;
      await held;
      return { data: {} };
    });
    try {
      const imported = await t.post("/api/v1/rules/import", {
        schema_version: 1,
        rule: { name: "Light then check", trigger_type: "manual" },
        steps: [
          { label: "light", step_type: "hub_action", schema_version: 1, config: { domain: "light", service: "turn_on" } },
          { label: "after", step_type: "condition", schema_version: 1, config: { expression: "true" } },
        ],
        edges: [{ source_label: "light", source_port: "main", target_label: "after" }],
      });
      assert.equal(imported.status, 201, imported.text);
      const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
      await eventually("the step to be under way", () => entered);
      const run = await completesAfterFlowsAway(exec, release); // the step ends while its node is away
      assert.deepEqual(
        run.step_timings.map((x: { label: string }) => x.label),
        ["light", "after"],
      );
    } finally {
      restore();
    }
  });
});
