/**
 * Interactive prompts through the real app: the prompt frame on `/ws`, answers over REST and
 * `/ws`, the first answer winning, the countdown on a manual clock, and the alert follow-ups.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { createAlert } from "../../../../../runtime/household/alerts/alerts.service";
import { applyOutcomeEffects } from "../../../../../runtime/care/services/interactive/interactive.effects";
import { findPrompt } from "../../../../../runtime/household/prompts/prompts.store";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { engineQuiet } from "../../../../support/engine-quiet";
import { eventually } from "../../../../support/eventually";
import { triggerContext } from "../../../../../runtime/care/core/pipeline/engine/types";

type Frame = Record<string, any>;

/** A web-app client on `/ws` that keeps every frame it receives. */
class Client {
  readonly frames: Frame[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.frames.push(JSON.parse(String(data))));
  }

  static connect(url: string, protocols: string[] = []): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, protocols);
      const client = new Client(ws);
      ws.once("open", () => resolve(client));
      ws.once("error", reject);
      ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  async next(match: (f: Frame) => boolean, what: string): Promise<Frame> {
    return eventually(`a ${what} frame`, () => this.frames.find(match));
  }

  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }

  close(): void {
    this.ws.close();
  }
}

describe("interactive prompts and responses", function () {
  this.timeout(30000);
  let t: TestApp;
  let clock: ManualClock;
  let popup: Client;
  let terminal: Client;

  before(async () => {
    clock = new ManualClock(Date.parse("2026-11-22T08:00:00Z"));
    t = await startTestApp({ nodeRed: true, clock });
    const ws = t.baseUrl.replace("http", "ws") + "/ws";
    popup = await Client.connect(ws, [KEYS.caregiver]); // the key as subprotocol
    terminal = await Client.connect(`${ws}?api_key=${KEYS.terminal}`); // the key as query parameter
  });
  after(async () => {
    popup.close();
    terminal.close();
    await t.close();
  });

  let ruleSeq = 0;
  /** A rule: ask, then a condition on the answer; returns the execution id once it waits. */
  async function askRun(promptConfig: Record<string, unknown> = {}): Promise<{ exec: number; prompt: Frame }> {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: `Ask ${++ruleSeq}`, trigger_type: "manual" },
      steps: [
        { label: "ask", step_type: "interactive_prompt", schema_version: 1, config: promptConfig },
        {
          label: "okay?",
          step_type: "condition",
          schema_version: 1,
          config: { expression: `${String(promptConfig.output_key ?? "interactive_response")}.action == 'dismiss'` },
        },
      ],
      edges: [{ source_label: "ask", source_port: "main", target_label: "okay?" }],
    });
    assert.equal(imported.status, 201, imported.text);
    const res = await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`);
    assert.equal(res.status, 201, res.text);
    const exec = res.body.execution_id as number;
    const prompt = await popup.next((f) => f.type === "interactive_prompt" && f.execution_id === exec, "interactive_prompt");
    return { exec, prompt };
  }

  async function until(id: number, statuses: string[]): Promise<Frame> {
    return eventually(`execution ${id} ${statuses.join("/")}`, async () => {
      const run = (await t.get(`/api/v1/workflows/${id}`)).body as Frame;
      return statuses.includes(run.status as string) ? run : undefined;
    });
  }

  const answer = (body: Record<string, unknown>, key: string = KEYS.admin) => t.request("POST", "/api/v1/interactive-responses", { body, key });
  /** The emergencies a prompt of run `exec` raised (auto_escalate). */
  const raisedFor = async (exec: number): Promise<Frame[]> =>
    (await t.get("/api/v1/alerts?alert_type=interactive_prompt_escalation")).body.filter((a: Frame) => a.execution_id === exec);

  it("broadcasts the prompt frame to every web-app client", async () => {
    const { exec, prompt } = await askRun({
      popup_message_template: "Still in the {{trigger_type}} room?",
      voice_prompt_template: "Are you alright?",
      countdown_seconds: 45,
    });
    const { step_id } = prompt;
    assert.deepEqual(prompt, {
      type: "interactive_prompt",
      execution_id: exec,
      step_id,
      message: "Still in the manual room?",
      title: "Question for You",
      escalate_button_text: "I need help",
      dismiss_button_text: "I'm okay",
      countdown_seconds: 45,
      countdown_total_seconds: 45,
      expires_at: new Date(clock.now() + 45_000).toISOString(),
      voice_prompt: "Are you alright?",
    });
    const other = await terminal.next((f) => f.type === "interactive_prompt" && f.execution_id === exec, "prompt on the second client");
    assert.deepEqual(other, prompt);
    assert.equal((await until(exec, ["waiting"])).status, "waiting");
    await t.post(`/api/v1/workflows/${exec}/cancel`);
  });

  it("the first answer resumes the run at once; later ones are acknowledged and change nothing", async () => {
    const { exec, prompt } = await askRun();
    await until(exec, ["waiting"]);
    const first = await answer({
      execution_id: exec,
      step_id: prompt.step_id,
      channel: "pwa_popup_text",
      action: "dismiss",
      raw_response: { button: "I'm okay" },
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.success, true);
    assert.equal(first.body.action, "dismiss");
    // No clock advance: the countdown is cancelled and the run goes on now.
    const done = await until(exec, ["completed", "failed"]);
    assert.equal(done.status, "completed", JSON.stringify(done));
    assert.deepEqual(done.pipeline_data.interactive_response, {
      channel: "pwa_popup_text",
      action: "dismiss",
      timestamp: new Date(clock.now()).toISOString(),
      raw_response: { button: "I'm okay" },
    });
    assert.equal(done.pipeline_data.condition.result, true);
    const closed = await terminal.next((f) => f.type === "interactive_prompt_closed" && f.execution_id === exec, "interactive_prompt_closed");
    assert.deepEqual(closed, { type: "interactive_prompt_closed", execution_id: exec, step_id: prompt.step_id, action: "dismiss", channel: "pwa_popup_text" });

    const later = await answer({ execution_id: exec, step_id: prompt.step_id, channel: "pwa_realtime_ai", action: "escalate", raw_response: {} });
    assert.equal(later.status, 200);
    assert.equal(later.body.success, false);
    assert.match(later.body.message, /^already answered by pwa_popup_text \(dismiss\)/);
    assert.equal(later.body.action, "dismiss", "the recorded action, not the late one");
    assert.equal((await t.get(`/api/v1/workflows/${exec}`)).body.pipeline_data.interactive_response.action, "dismiss");
  });

  it("answers over /ws the moment the prompt arrives, before the run has parked; REST after it is acknowledged", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Ask over ws", trigger_type: "manual" },
      steps: [{ label: "ask", step_type: "interactive_prompt", schema_version: 1, config: { output_key: "answer" } }],
    });
    // Answer from inside the message handler: as early as any client can.
    const answered = new Promise<void>((resolve) => {
      terminal.ws.on("message", function onPrompt(data) {
        const f = JSON.parse(String(data));
        if (f.type !== "interactive_prompt" || f.execution_id === undefined) return;
        terminal.ws.off("message", onPrompt);
        terminal.send({ type: "interactive_response", execution_id: f.execution_id, step_id: f.step_id, action: "escalate", raw_response: { said: "help" } });
        resolve();
      });
    });
    const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
    await answered;
    const result = await terminal.next((f) => f.type === "interactive_response_result" && f.execution_id === exec, "interactive_response_result");
    assert.equal(result.success, true, JSON.stringify(result));
    assert.equal(result.action, "escalate");
    const done = await until(exec, ["completed", "failed"]);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.pipeline_data.answer, {
      channel: "pwa_popup_text",
      action: "escalate",
      timestamp: new Date(clock.now()).toISOString(),
      raw_response: { said: "help" },
    });
    const later = await answer({ execution_id: exec, step_id: result.step_id, channel: "pwa_popup_text", action: "dismiss", raw_response: {} });
    assert.deepEqual([later.status, later.body.success, later.body.action], [200, false, "escalate"]);
    const raised = (await t.get("/api/v1/alerts?alert_type=interactive_prompt_escalation")).body.filter((a: Frame) => a.execution_id === exec);
    assert.deepEqual(raised, [], "without auto_escalate the rule decides what follows: no alert of its own");
  });

  it("of answers arriving together from several channels, exactly one is applied", async () => {
    const { exec, prompt } = await askRun();
    await until(exec, ["waiting"]);
    const body = (channel: string, action: string) => ({ execution_id: exec, step_id: prompt.step_id, channel, action, raw_response: {} });
    const results = await Promise.all([
      answer(body("pwa_popup_text", "dismiss")),
      answer(body("pwa_realtime_ai", "escalate")),
      answer(body("pwa_popup_text", "escalate")),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200],
    );
    const winners = results.filter((r) => r.body.success);
    assert.equal(winners.length, 1);
    const done = await until(exec, ["completed", "failed"]);
    assert.equal(done.pipeline_data.interactive_response.action, winners[0].body.action);
    for (const r of results) assert.equal(r.body.action, winners[0].body.action, "everyone is told the action that counts");
  });

  it("a prompt whose countdown runs out records the timeout action and raises the alert with auto_escalate", async () => {
    const { exec, prompt } = await askRun({ countdown_seconds: 20, timeout_action: "escalate", auto_escalate: true });
    await until(exec, ["waiting"]);
    clock.advance(19_000);
    await engineQuiet(t.app.engine);
    assert.equal((await t.get(`/api/v1/workflows/${exec}`)).body.status, "waiting", "not before the countdown");
    clock.advance(1_000);
    const done = await until(exec, ["completed", "failed"]);
    assert.deepEqual(done.pipeline_data.interactive_response, {
      channel: "timeout",
      action: "escalate",
      timestamp: new Date(clock.now()).toISOString(),
      raw_response: null,
    });
    assert.equal(done.pipeline_data.condition.result, false);
    const closed = await popup.next((f) => f.type === "interactive_prompt_closed" && f.execution_id === exec, "interactive_prompt_closed");
    assert.deepEqual([closed.channel, closed.action], ["timeout", "escalate"]);
    // Raised by the countdown itself, not by the late answer below finding it run out.
    await eventually("the countdown's emergency", async () => ((await raisedFor(exec)).length === 1 ? true : undefined));
    const late = await answer({ execution_id: exec, step_id: prompt.step_id, channel: "pwa_popup_text", action: "dismiss", raw_response: {} });
    assert.deepEqual([late.status, late.body.success, late.body.action], [200, false, "escalate"]);
    assert.match(late.body.message, /countdown/);
    const alerts = (await t.get("/api/v1/alerts?alert_type=interactive_prompt_escalation")).body.filter((a: Frame) => a.execution_id === exec);
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0].level, "emergency");
    // What the family reads on the alert: what was asked, and that nobody answered.
    assert.equal(alerts[0].description, `${prompt.message}: no answer before the countdown ran out`);
    assert.equal(alerts[0].rule_id, done.rule_id, "the rule that asked");
  });

  it("the countdown's emergency names the room and the sensor the run was started by", async () => {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: `Hall check ${++ruleSeq}`, trigger_type: "manual" },
      steps: [
        {
          label: "ask",
          step_type: "interactive_prompt",
          schema_version: 1,
          config: { countdown_seconds: 10, timeout_action: "escalate", auto_escalate: true },
        },
      ],
      edges: [],
    });
    assert.equal(imported.status, 201, imported.text);
    const trigger = triggerContext({ trigger_type: "sensor_event", sensor_id: "hall_pir", room_name: "Hall" });
    const fired = await t.app.engine!.fire({ rule_id: imported.body.rule_id as number, trigger, trigger_input: null, skip_gates: true });
    const exec = fired.execution_id!;
    await until(exec, ["waiting"]);
    clock.advance(10_000);
    const [alert] = await eventually("the countdown's emergency", async () => ((await raisedFor(exec)).length ? raisedFor(exec) : undefined));
    assert.deepEqual([alert.room_name, alert.sensor_id], ["Hall", "hall_pir"], "the family sees where she was asked");
  });

  it("a timed-out dismiss records {channel: timeout, action: dismiss} and leaves the run's alert open", async () => {
    const { exec, prompt } = await askRun({ countdown_seconds: 5, timeout_action: "dismiss" });
    await until(exec, ["waiting"]);
    const alert = await createAlert(t.app.ctx, { alert_type: "bathroom_dwell", level: "warning", description: "long in the bathroom", execution_id: exec });
    // What follows the outcome, awaited here: the countdown's own close runs in the background.
    const row = (await findPrompt(t.app.ctx.db, exec, prompt.step_id))!;
    await applyOutcomeEffects(t.app.ctx, row, { channel: "timeout", action: "dismiss", actor: "countdown" });
    // Silence is nobody saying "I'm okay": the run's alert stays open for the family.
    assert.equal((await t.get(`/api/v1/alerts/${alert.id}`)).body.resolved, false, "a timed-out dismiss acknowledges nothing");
    clock.advance(5_000);
    const done = await until(exec, ["completed", "failed"]);
    assert.deepEqual([done.pipeline_data.interactive_response.channel, done.pipeline_data.interactive_response.action], ["timeout", "dismiss"]);
  });

  it("a dismiss acknowledges the run's open alert; an escalate with auto_escalate raises one", async () => {
    const { exec, prompt } = await askRun({ auto_escalate: true });
    await until(exec, ["waiting"]);
    const alert = await createAlert(t.app.ctx, { alert_type: "bathroom_dwell", level: "warning", description: "long in the bathroom", execution_id: exec });
    assert.equal(
      (await answer({ execution_id: exec, step_id: prompt.step_id, channel: "pwa_realtime_ai", action: "dismiss", raw_response: { transcript: "I'm fine" } }))
        .body.success,
      true,
    );
    const acked = (await t.get(`/api/v1/alerts/${alert.id}`)).body;
    assert.equal(acked.resolved, true);
    assert.equal(acked.actions[0].action, "dismiss");
    assert.match(acked.actions[0].actor, /test admin \(pwa_realtime_ai\)/);
    assert.equal(acked.actions[0].note, `answered "dismiss" to "${prompt.message}" (pwa_realtime_ai)`, "the alert says why it was put away");
    assert.deepEqual(await raisedFor(exec), [], "I'm okay raises no emergency, auto_escalate or not");

    const second = await askRun({ auto_escalate: true });
    await until(second.exec, ["waiting"]);
    const open = await createAlert(t.app.ctx, {
      alert_type: "bathroom_dwell",
      level: "warning",
      description: "long in the bathroom",
      execution_id: second.exec,
    });
    assert.equal(
      (await answer({ execution_id: second.exec, step_id: second.prompt.step_id, channel: "pwa_popup_text", action: "escalate", raw_response: {} })).body
        .success,
      true,
    );
    const raised = await raisedFor(second.exec);
    assert.equal(raised.length, 1);
    assert.equal((await t.get(`/api/v1/alerts/${open.id}`)).body.resolved, false, "I need help puts no alert away");
    assert.equal(raised[0].resolved, false);
    assert.equal(raised[0].description, `${second.prompt.message}: answered "escalate" (pwa_popup_text)`);
  });

  it("answers 422 naming the field for a bad body, 404 for an unknown execution or step, 409 for an ended run", async () => {
    const { exec, prompt } = await askRun();
    await until(exec, ["waiting"]);
    const good = { execution_id: exec, step_id: prompt.step_id, channel: "pwa_popup_text", action: "dismiss", raw_response: {} };
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...good, execution_id: undefined }, /execution_id/],
      [{ ...good, execution_id: "1" }, /execution_id/],
      [{ ...good, step_id: 1.5 }, /step_id/],
      [{ ...good, channel: "sms" }, /channel/],
      [{ ...good, action: "help" }, /action/],
      [{ ...good, raw_response: "yes" }, /raw_response/],
      [{ ...good, note: "x" }, /note: unknown field/],
    ];
    for (const [body, field] of bad) {
      const res = await answer(body);
      assert.equal(res.status, 422, `${JSON.stringify(body)} → ${res.text}`);
      assert.match(res.body.detail, field);
    }
    assert.equal((await answer({ ...good, execution_id: 999999 })).status, 404);
    const noStep = await answer({ ...good, step_id: prompt.step_id + 1000 });
    assert.equal(noStep.status, 404);
    assert.match(noStep.body.detail, /no interactive prompt at step/);
    assert.equal((await t.request("POST", "/api/v1/interactive-responses", { body: good, key: KEYS.caregiver })).status, 403, "caregivers only read");

    assert.equal((await t.post(`/api/v1/workflows/${exec}/cancel`)).status, 200);
    const ended = await answer(good);
    assert.equal(ended.status, 409, ended.text);
    assert.match(ended.body.detail, /cancelled/);
  });

  it("a bad /ws answer frame gets an error frame naming the field", async () => {
    terminal.send({ type: "interactive_response", execution_id: 1, step_id: 1, action: "maybe" });
    const err = await terminal.next((f) => f.type === "error" && /action/.test(String(f.detail)), "error");
    assert.match(err.detail, /action/);
  });
});
