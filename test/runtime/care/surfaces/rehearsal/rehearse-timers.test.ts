/**
 * Rehearsal on its own clock (issue 27 §2): a cron rule's ticks and its waits fall at their
 * times in the window, and a model step answers from the recorded run of the same input, is
 * asked only when the request allows it, and is otherwise reported as not rehearsed. A prompt
 * is answered as the senior answered it in the recorded run, as long after it went out; one
 * she left unanswered runs to its countdown.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../../fakes/openai-chat-server";
import { recordCheckOnRose } from "../../../../support/check-on-rose";

const MIN = 60_000;
const T0 = Date.parse("2026-11-20T02:00:00Z");

describe("rehearsal on its own clock", function () {
  this.timeout(60_000);
  let t: TestApp;
  let model: ScriptedServer;
  const clock = new ManualClock(T0);

  before(async () => {
    model = await startFakeOpenAiChatServer();
    t = await startTestApp({
      clock,
      nodeRed: true,
      settings: { llm: { models: [{ id: "judge", api_type: "openai", base_url: model.baseUrl, model: "m", capabilities: ["text"] }] } },
    });
  });
  after(async () => {
    await t.close();
    await model.close();
  });

  it("a cron rule ticks every 15 minutes and each run's wait ends 10 minutes later", async () => {
    await t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" });
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Night round", trigger_type: "cron", schedule_cron: "*/15 * * * *", primary_sensor_ref: { kind: "sensor", label: "hall_pir" } },
      steps: [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 10 } },
        {
          label: "say",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "info", channels: ["pwa_popup_text"], message_template: "Round at {{system.local_time_24h}}" },
        },
      ],
      edges: [{ source_label: "pause", source_port: "main", target_label: "say" }],
    });
    assert.equal(imported.status, 201, imported.text);
    // A window before the rule existed: nothing recorded, the rehearsal's clock does it all.
    clock.set(T0 + 3 * 60 * MIN);
    const res = await t.post(`/api/v1/rules/${imported.body.rule_id}/rehearse`, {
      from: new Date(T0).toISOString(),
      to: new Date(T0 + 60 * MIN).toISOString(),
    });
    assert.equal(res.status, 200, res.text);
    const runs = res.body.rehearsed as Array<{
      started_at: string;
      status: string;
      steps: Array<{ label: string; started_at: string }>;
      would_send: Array<{ at: string; text: string }>;
    }>;
    assert.deepEqual(
      runs.map((r) => r.started_at),
      [0, 15, 30, 45].map((m) => new Date(T0 + m * MIN).toISOString()),
    );
    // Each said its line when its wait ended, 10 minutes in (the text rendered at that time).
    assert.ok(runs.every((r) => r.status === "completed"));
    assert.deepEqual(
      runs.map((r) => r.would_send.map((w) => [w.at, w.text])[0]),
      [10, 25, 40, 55].map((m) => [new Date(T0 + m * MIN).toISOString(), `Round at 02:${String(m - 10).padStart(2, "0")}`]),
    );
    assert.equal(res.body.actual.length, 0);
    assert.equal(res.body.difference.summary, "4 more alerts, four new at 02:00, 02:15, 02:30, 02:45, 4 runs more");

    // A window ending while the last round waits: that run is shown waiting.
    const short = await t.post(`/api/v1/rules/${imported.body.rule_id}/rehearse`, {
      from: new Date(T0).toISOString(),
      to: new Date(T0 + 50 * MIN).toISOString(),
    });
    assert.equal(short.status, 200, short.text);
    assert.deepEqual(
      short.body.rehearsed.map((r: { status: string }) => r.status),
      ["completed", "completed", "completed", "waiting"],
    );
  });

  it("a model step answers from the recorded run, else is not rehearsed unless call_models", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Judge the knock", trigger_type: "webhook" },
      steps: [
        {
          label: "judge",
          step_type: "llm_call",
          config: { model_id: "judge", prompt: "Is {{trigger_input.who}} expected?", response_format: "json_free", output_key: "verdict" },
        },
        { label: "unexpected?", step_type: "condition", config: { expression: "verdict.expected == false" } },
        {
          label: "warn",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "info", channels: ["pwa_popup_text"], message_template: "Unexpected visitor: {{trigger_input.who}}" },
        },
      ],
      edges: [
        { source_label: "judge", source_port: "main", target_label: "unexpected?" },
        { source_label: "unexpected?", source_port: "true", target_label: "warn" },
      ],
    });
    assert.equal(imported.status, 201, imported.text);
    const id = imported.body.rule_id;
    const secret = (await t.post(`/api/v1/webhooks/${id}/generate-secret`, {})).body.secret as string;
    const from = new Date(clock.now()).toISOString();
    // Live: the model said "not expected" for the stranger; it was down for the nurse.
    model.script({ content: JSON.stringify({ expected: false }) }, { status: 500, error: "overloaded" });
    for (const who of ["stranger", "nurse"]) {
      const hook = await t.request("POST", `/api/v1/webhooks/${id}`, { key: null, headers: { "X-Webhook-Secret": secret }, body: { who } });
      assert.equal(hook.status, 200, hook.text);
      await eventually(`${who}'s run ended`, async () =>
        ["completed", "failed"].includes((await t.get(`/api/v1/workflows/${hook.body.execution_id}`)).body.status),
      );
      clock.advance(MIN);
    }
    const asked = model.requests.length;
    const res = await t.post(`/api/v1/rules/${id}/rehearse`, { from });
    assert.equal(res.status, 200, res.text);
    assert.equal(model.requests.length, asked, "the model was not asked");
    const [stranger, nurse] = res.body.rehearsed;
    assert.equal(stranger.alerted, true, JSON.stringify(stranger));
    assert.deepEqual(
      stranger.would_send.map((w: { text: string }) => w.text),
      ["Unexpected visitor: stranger"],
    );
    assert.equal(nurse.alerted, false);
    assert.deepEqual(
      res.body.not_rehearsed.map((n: { service: string; execution_id: number }) => [n.service, n.execution_id]),
      [["llm", nurse.execution_id]],
    );

    model.fallback = { content: JSON.stringify({ expected: false }) };
    const called = await t.post(`/api/v1/rules/${id}/rehearse`, { from, call_models: true });
    assert.equal(called.status, 200, called.text);
    assert.equal(model.requests.length, asked + 1, "asked once: for the nurse, whose recorded run has no answer");
    assert.deepEqual(called.body.not_rehearsed, []);
    assert.equal(called.body.rehearsed[1].alerted, true);
  });

  it("a prompt is answered as the senior answered it in the recorded run; one she left runs to its countdown", async () => {
    const from = new Date(clock.now()).toISOString();
    const { ruleId: id, runs } = await recordCheckOnRose(t, clock);
    const res = await t.post(`/api/v1/rules/${id}/rehearse`, { from });
    assert.equal(res.status, 200, res.text);
    const [answered, unanswered] = res.body.rehearsed;
    assert.equal(answered.alerted, false, JSON.stringify(answered));
    assert.equal(unanswered.alerted, true, JSON.stringify(unanswered));
    assert.deepEqual(
      answered.would_send.map((w: { kind: string; text: string }) => [w.kind, w.text]),
      [["prompt", "Are you alright?"]],
      "the prompt is listed once, not again as its popup frame",
    );
    assert.equal(res.body.difference.rehearsed_alerts, res.body.difference.actual_alerts, res.body.difference.summary);
    assert.deepEqual(
      res.body.recorded_answers.map((a: { service: string; execution_id: number; from_execution_id: number; at: string }) => [
        a.service,
        a.execution_id,
        a.from_execution_id,
        Date.parse(a.at) - Date.parse(answered.started_at),
      ]),
      [["interactive_prompt", answered.execution_id, runs[0], 20_000]],
    );
  });
});
