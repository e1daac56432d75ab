/**
 * Prompts missed while offline: a web app (or any client of `/ws`) that connects while a
 * prompt is open is sent it after the welcome frame, with the seconds left; an answered, an
 * expired and a cancelled run's prompt are not sent. Over real HTTP and `/ws`, on a manual clock.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { openPrompts } from "../../../../../runtime/household/prompts/prompts.store";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually } from "../../../../support/eventually";
import { drained } from "../../../../support/ws-drained";

type Frame = Record<string, any>;

describe("interactive prompts: the open ones are sent to a client that connects", function () {
  this.timeout(30000);
  const T0 = Date.parse("2026-11-22T08:00:00Z");
  let t: TestApp;
  let clock: ManualClock;
  const sockets: WebSocket[] = [];

  before(async () => {
    clock = new ManualClock(T0);
    t = await startTestApp({ nodeRed: true, clock });
  });
  after(async () => {
    for (const ws of sockets) ws.close();
    await t.close();
  });

  /** Connects with `key` and gives back the frames it receives, once `count` of them (or 2 s) are in. */
  async function connect(key: string, count: number): Promise<Frame[]> {
    const frames: Frame[] = [];
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [key]);
    sockets.push(ws);
    ws.on("message", (data) => frames.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject)));
    await eventually(`${count} frame(s)`, () => frames.length >= count);
    // Anything more would have been sent by the time the greetings are done, and received before the pong.
    await t.app.ctx.webapp.greeted();
    await drained(ws);
    // Closed to the end of its handshake: ws keeps a timer until the server's close frame comes.
    await new Promise((resolve) => {
      ws.once("close", resolve);
      ws.close();
    });
    return frames;
  }

  let seq = 0;
  async function ask(config: Record<string, unknown>): Promise<{ exec: number; step_id: number }> {
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: `Ask ${++seq}`, trigger_type: "manual" },
      steps: [{ label: "ask", step_type: "interactive_prompt", schema_version: 1, config }],
    });
    assert.equal(imported.status, 201, imported.text);
    const res = await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`);
    assert.equal(res.status, 201, res.text);
    const exec = res.body.execution_id as number;
    await eventually(`run ${exec} waiting`, async () => (await t.get(`/api/v1/workflows/${exec}`)).body.status === "waiting");
    const prompt = await t.app.ctx.db("interactive_prompts").where({ execution_id: exec }).first();
    return { exec, step_id: prompt.step_id as number };
  }

  const prompts = (frames: Frame[]) => frames.filter((f) => f.type === "interactive_prompt");

  it("a prompt put while nobody was connected comes after the welcome, with the seconds left rounded up", async () => {
    assert.equal(t.app.ctx.webapp.size, 0);
    const { exec, step_id } = await ask({
      popup_title: "Morning check",
      popup_message_template: "Did you sleep well?",
      voice_prompt_template: "Good morning. Did you sleep well?",
      escalate_button_text: "Not really",
      dismiss_button_text: "Yes",
      countdown_seconds: 60,
    });
    clock.advance(20_500);
    const frames = await connect(KEYS.webapp, 2);
    assert.equal(frames[0].type, "welcome", "the welcome comes first");
    assert.deepEqual(prompts(frames), [
      {
        type: "interactive_prompt",
        execution_id: exec,
        step_id,
        message: "Did you sleep well?",
        title: "Morning check",
        escalate_button_text: "Not really",
        dismiss_button_text: "Yes",
        countdown_seconds: 40,
        countdown_total_seconds: 60,
        expires_at: new Date(T0 + 60_000).toISOString(),
        voice_prompt: "Good morning. Did you sleep well?",
      },
    ]);
    // Not only the web app: a display key on /ws receives prompts anyway, and so their replay.
    const display = prompts(await connect(KEYS.display, 2));
    assert.deepEqual(
      display.map((f) => [f.execution_id, f.countdown_seconds]),
      [[exec, 40]],
    );
    // Answered now: the next client is not asked.
    const answered = await t.post("/api/v1/interactive-responses", { execution_id: exec, step_id, channel: "pwa_popup_text", action: "dismiss" });
    assert.equal(answered.body.success, true, answered.text);
    assert.deepEqual(prompts(await connect(KEYS.webapp, 1)), []);
  });

  it("only the open ones: not an answered one, not one whose countdown ran out, not one of a cancelled run", async () => {
    const answered = await ask({ popup_message_template: "answered", countdown_seconds: 300 });
    const res = await t.post("/api/v1/interactive-responses", {
      execution_id: answered.exec,
      step_id: answered.step_id,
      channel: "pwa_realtime_ai",
      action: "dismiss",
    });
    assert.equal(res.body.success, true, res.text);
    const cancelled = await ask({ popup_message_template: "cancelled", countdown_seconds: 300 });
    assert.equal((await t.post(`/api/v1/workflows/${cancelled.exec}/cancel`)).status, 200);
    const expiring = await ask({ popup_message_template: "expiring", countdown_seconds: 10 });
    const open = await ask({ popup_message_template: "open", countdown_seconds: 300 });
    clock.advance(10_000); // `expiring` runs out (the run resumes with its timeout action)
    const sent = prompts(await connect(KEYS.webapp, 2));
    assert.deepEqual(
      sent.map((f) => [f.message, f.countdown_seconds]),
      [["open", 290]],
    );
    assert.equal(sent[0].execution_id, open.exec);
    assert.ok(expiring.exec);
    // Past its expiry a prompt is not open even before the countdown's outcome is recorded.
    const later = new Date(clock.now() + 300_000).toISOString();
    assert.deepEqual(await openPrompts(t.app.ctx.db, later), []);
  });
});
