/**
 * A notification that reached nobody is never a silent green run: the step keeps each
 * channel's receipt, the step and the run carry a warning in REST, the live feed and the
 * editor's runs view, the alert still escalates, and the log says it once per run (not once
 * per step, attempt or repetition).
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startEscalation, type EscalationHandle } from "../../../../../runtime/care/services/notify/escalation";
import { captureLog, type CapturedLog } from "../../../../support/capture-log";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";

const MIN = 60_000;

describe("notifications that reach nobody", function () {
  this.timeout(60_000);
  let t: TestApp;
  let clock: ManualClock;
  let esc: EscalationHandle;
  let captured: CapturedLog;

  before(async () => {
    captured = captureLog("info");
    clock = new ManualClock(Date.parse("2026-11-24T09:00:00Z"));
    // Nothing to fall back on: the household's e-ink display would otherwise carry these (fallback.api.test.ts).
    t = await startTestApp({ nodeRed: true, clock, log: captured.log, settings: { notifications: { fallback: { order: [] } } } });
    esc = startEscalation(t.app.ctx, { services: t.app.services });
  });
  after(async () => {
    await esc.stop();
    await t.close();
  });

  async function importRule(name: string, steps: Array<Record<string, unknown>>): Promise<number> {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, trigger_type: "manual" },
      steps: steps.map((config, i) => ({ label: `${name} ${i + 1}`, step_type: "notification", schema_version: 1, config })),
    });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id as number;
  }

  async function execute(ruleId: number): Promise<Record<string, any>> {
    const exec = (await t.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    return eventually("run ended", async () => {
      const run = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return ["completed", "failed"].includes(run.status) ? run : undefined;
    });
  }

  const warnLines = (msg: string) => captured.lines.filter((l) => l.msg === msg);

  it("marks the step and the run with a warning and the channel's receipt, in every view", async () => {
    const ruleId = await importRule("Nobody home", [{ alert_level: "warning", channels: ["pwa_popup_text"], message_template: "Rose has not had breakfast" }]);
    const feed = new WebSocket(t.baseUrl.replace("http", "ws") + "/ws/pipeline", [KEYS.caregiver]);
    const frames: Array<Record<string, any>> = [];
    feed.on("message", (d) => frames.push(JSON.parse(String(d))));
    await new Promise((r, j) => feed.once("open", r).once("error", j));
    try {
      const run = await execute(ruleId);
      assert.equal(run.status, "completed", "the run itself did its job");
      assert.equal(run.pipeline_data.notification_dispatched, false);
      const timing = run.step_timings[0];
      assert.match(timing.warning, /reached nobody \(Tablet popup: no tablet has the care app open\)/);
      assert.deepEqual(timing.receipts, [{ channel: "pwa_popup_text", delivered: false, detail: "no tablet has the care app open" }]);
      assert.equal(run.warnings.length, 1);
      assert.match(run.warnings[0], /^step 'Nobody home 1': reached nobody/);

      const detail = (await t.get(`/api/v1/workflows/${run.id}/detail`)).body;
      assert.deepEqual(detail.warnings, run.warnings);
      assert.deepEqual(detail.timeline[0].receipts, timing.receipts);
      assert.equal(detail.timeline[0].warning, timing.warning);
      const listed = (await t.get(`/api/v1/pipeline/runs/${run.id}`)).body;
      assert.deepEqual(listed.warnings, run.warnings);
      assert.equal(listed.steps[0].warning, timing.warning);

      // The editor's runs sidebar reads the same views through the admin API.
      const editorRuns = await fetch(`${t.baseUrl}/editor/careflow/runs`, { headers: { authorization: `Bearer ${KEYS.admin}` } }).then(
        (r) => r.json() as Promise<Array<Record<string, any>>>,
      );
      assert.deepEqual(editorRuns.find((r) => r.execution_id === run.id)?.warnings, run.warnings);

      const completed = await eventually("step_completed on the live feed", () =>
        frames.find((f) => f.event_type === "step_completed" && f.execution_id === run.id),
      );
      assert.equal(completed.warning, timing.warning);
      assert.deepEqual(completed.receipts, timing.receipts);
    } finally {
      feed.close();
    }
  });

  it("a delivered notification carries receipts and no warning", async () => {
    const web = new WebSocket(t.baseUrl.replace("http", "ws") + "/ws", [KEYS.display]);
    await new Promise((r, j) => web.once("open", r).once("error", j));
    try {
      const run = await execute(await importRule("Someone home", [{ alert_level: "info", channels: ["pwa_popup_text"], message_template: "Lunch is ready" }]));
      assert.equal(run.step_timings[0].warning, null);
      assert.equal(run.step_timings[0].receipts[0].delivered, true);
      assert.deepEqual(run.warnings, []);
    } finally {
      web.close();
    }
  });

  it("logs one line per run however many steps reached nobody, and the alert keeps escalating", async () => {
    const before = warnLines("run needs a look").length;
    const ruleId = await importRule("Fall, nobody told", [
      { alert_level: "emergency", channels: ["pwa_popup_text"], message_template: "Rose may have fallen" },
      { alert_level: "info", channels: ["pwa_popup_text"], message_template: "Second try" },
    ]);
    const run = await execute(ruleId);
    assert.equal(run.warnings.length, 2, "both steps are marked");
    assert.equal(warnLines("run needs a look").length, before + 1, "one log line for the run");

    const alert = (await t.get(`/api/v1/alerts?alert_type=${encodeURIComponent("Fall, nobody told 1")}`)).body[0];
    assert.ok(alert, "the emergency raised an alert although nobody saw it");
    for (let i = 1; i <= 3; i++) {
      clock.advance(5 * MIN);
      await esc.settled();
      await eventually(`escalation ${i}`, async () => (await t.get(`/api/v1/alerts/${alert.id}`)).body.escalation_count === i);
    }
    assert.equal(
      warnLines("escalation of an open alert reached nobody").filter((l) => l.alert_id === alert.id).length,
      1,
      "one warning for the alert, not one per repetition",
    );
    // Warn or worse about this run or its alert: one line each, not one per channel, step or repetition.
    const loud = captured.lines.filter((l) => Number(l.level) >= 40 && (l.execution_id === run.id || l.alert_id === alert.id));
    assert.deepEqual(
      loud.map((l) => l.msg),
      ["run needs a look", "escalation of an open alert reached nobody"],
    );
  });
});
