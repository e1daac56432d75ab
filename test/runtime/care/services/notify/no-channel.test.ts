/**
 * Issue 42 §1: a notification step that had no channel to try (here the operator's reminder
 * level has none) told nobody, so its run "needs a look", never a plain success: in REST, the
 * live feed, the editor's Care runs tab and a rehearsal, where it does not count as an alert.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { eventually } from "../../../../support/eventually";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";

const MIN = 60_000;
const T0 = Date.parse("2026-11-20T08:00:00Z");
const NO_CHANNEL = /^reached no channel: no channel was configured for this notification, so nobody was told$/;

describe("a notification that reached no channel", function () {
  this.timeout(60_000);
  let t: TestApp;
  const clock = new ManualClock(T0);

  before(async () => {
    t = await startTestApp({ nodeRed: true, clock, settings: { notifications: { levels: { reminder: { channels: [] } } } } });
  });
  after(() => t.close());

  const importRule = async (name: string, rule: Record<string, unknown>) => {
    const res = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name, ...rule },
      steps: [{ label: "remind", step_type: "notification", schema_version: 1, config: { alert_level: "reminder", message_template: "Water the plants" } }],
    });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id as number;
  };

  it("needs a look in REST, the live feed and the Care runs tab", async () => {
    const ruleId = await importRule("Plants", { trigger_type: "manual" });
    const feed = new WebSocket(t.baseUrl.replace("http", "ws") + "/ws/pipeline", [KEYS.caregiver]);
    const frames: Array<Record<string, any>> = [];
    feed.on("message", (d) => frames.push(JSON.parse(String(d))));
    await new Promise((r, j) => feed.once("open", r).once("error", j));
    try {
      const exec = (await t.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
      const run = await eventually("the run ended", async () => {
        const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
        return r.status === "completed" || r.status === "failed" ? r : undefined;
      });
      assert.equal(run.pipeline_data.notification_dispatched, false);
      assert.deepEqual(run.pipeline_data.notification_channels, {});
      assert.match(run.step_timings[0].warning, NO_CHANNEL);
      assert.deepEqual(run.step_timings[0].receipts, []);
      assert.equal(run.warnings.length, 1);
      assert.match(run.warnings[0], /^step 'remind': reached no channel/);
      assert.deepEqual((await t.get(`/api/v1/pipeline/runs/${exec}`)).body.warnings, run.warnings);

      const editorRuns = await fetch(`${t.baseUrl}/editor/careflow/runs`, { headers: { authorization: `Bearer ${KEYS.admin}` } }).then(
        (r) => r.json() as Promise<Array<Record<string, any>>>,
      );
      assert.deepEqual(editorRuns.find((r) => r.execution_id === exec)?.warnings, run.warnings);

      const completed = await eventually("step_completed on the live feed", () =>
        frames.find((f) => f.event_type === "step_completed" && f.execution_id === exec),
      );
      assert.match(completed.warning, NO_CHANNEL);
    } finally {
      feed.close();
    }
  });

  it("needs a look in a rehearsal, and is not counted as an alert", async () => {
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" });
    const ruleId = await importRule("Plants, hourly", {
      trigger_type: "cron",
      schedule_cron: "0 * * * *",
      primary_sensor_ref: { kind: "sensor", label: "hall_pir" },
    });
    clock.set(T0 + 3 * 60 * MIN);
    const res = await t.post(`/api/v1/rules/${ruleId}/rehearse`, { from: new Date(T0 + 1).toISOString(), to: new Date(T0 + 150 * MIN).toISOString() });
    assert.equal(res.status, 200, res.text);
    const runs = res.body.rehearsed as Array<{ status: string; alerted: boolean; warnings: string[] }>;
    assert.equal(runs.length, 2, JSON.stringify(runs));
    for (const r of runs) {
      assert.equal(r.alerted, false, "nobody would have been alerted");
      assert.equal(r.warnings.length, 1);
      assert.match(r.warnings[0], /^step 'remind': reached no channel/);
    }
    assert.equal(res.body.difference.rehearsed_alerts, 0);
  });
});
