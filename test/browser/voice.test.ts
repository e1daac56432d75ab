/**
 * The voice companion in the senior's web app, in a real Chromium whose microphone is a WAV
 * file (`--use-fake-device-for-media-stream --use-file-for-fake-audio-capture`: a short
 * voice-like sound, then quiet, looped), against the fake realtime model: the Talk button
 * starts a conversation, the microphone reaches the model (its VAD hears the "speech"), a
 * tool call runs on the server and a destructive one is refused, the companion's audio plays
 * in the page, a prompt is answered by voice and closes on screen, and a quiz is answered by
 * voice to the end, its screen following each answer; a lost connection ends the conversation.
 * Screenshots:
 * test-output/screenshots/webapp-voice.png, webapp-voice-quiz.png.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startFakeRealtime, type FakeRealtime } from "../fakes/realtime-server";
import { chromiumOrSkip, launchTabletBrowser, SCREENSHOT_DIR } from "../support/browser";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { insertQuiz } from "../support/knowledge-fixture";
import { eventually } from "../support/eventually";
import { wavOf } from "../tts/helpers";

declare const document: any;
declare const window: any;

/**
 * A 48 kHz mono WAV: 3.6 s of quiet, then 0.8 s of a voice-like sound (a buzz with a syllable
 * rhythm), looped. The quiet comes first so the companion's first words end before the
 * "senior" speaks: talking over it would cut them off (barge-in), as with a real person. (2.4 s
 * was too short on a loaded CI box: the companion's question was cut off and never on screen.)
 */
function micWav(): string {
  const rate = 48000;
  const voiced = Buffer.alloc(rate * 0.8 * 2);
  for (let i = 0; i < voiced.length / 2; i++) {
    const t = i / rate;
    const syllables = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    const buzz = Math.sin(2 * Math.PI * 180 * t) + 0.5 * Math.sin(2 * Math.PI * 360 * t) + 0.3 * Math.sin(2 * Math.PI * 720 * t + 1);
    voiced.writeInt16LE(Math.round(9000 * syllables * buzz), i * 2);
  }
  const quiet = Buffer.alloc(rate * 3.6 * 2);
  const data = Buffer.concat([quiet, voiced]);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "careflow-mic-")), "mic.wav");
  fs.writeFileSync(file, wavOf(data, rate));
  return file;
}

describe("browser: the voice companion in the web app", function () {
  this.timeout(120000);
  let fake: FakeRealtime;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  /** The fake model's log (connections, client events, responses): shown when a wait fails. */
  const fakeLog: string[] = [];
  const report = (): Promise<any> => page.evaluate(() => JSON.parse(JSON.stringify(window.careflowWebApp)));
  // These waits follow real-time audio; under CI's load one failed now and then, saying only
  // "timeout". A failed wait now says what the page heard and what the fake model last did.
  const until = async (fn: () => boolean, timeout = 20000) => {
    try {
      return await page.waitForFunction(fn, undefined, { timeout });
    } catch (err) {
      const voice = await report()
        .then((r) => JSON.stringify(r?.voice))
        .catch((e: Error) => `(unreadable: ${e.message})`);
      throw new Error(`${(err as Error).message}\nthe page's voice state: ${voice}\nthe fake model's last lines:\n${fakeLog.slice(-40).join("\n")}`, {
        cause: err,
      });
    }
  };

  before(async function () {
    const executablePath = chromiumOrSkip(this);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    fake = await startFakeRealtime({ log: (line) => fakeLog.push(`${new Date().toISOString().slice(11, 23)} ${line}`) });
    t = await startTestApp({ nodeRed: true, settings: { llm: { realtime: { url: fake.url, model: "fake-realtime-1" } } } });
    browser = await launchTabletBrowser(executablePath, [
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${micWav()}`,
    ]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: true });
    await context.grantPermissions(["microphone"], { origin: t.baseUrl });
    page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${t.baseUrl}/app#key=${encodeURIComponent(KEYS.webapp)}`);
    await until(() => window.careflowWebApp?.state === "connected");
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await t?.close();
    await fake?.close();
  });

  it("the Talk button starts a conversation: the microphone reaches the model, a tool runs on the server, a destructive one is refused, and the answer plays", async () => {
    fake.setScript([
      { on: "response", say: "Hello Rose, how can I help?" },
      { on: "speech", transcript: "Which rooms do I have?", calls: [{ name: "get_rooms" }], say: "Your home has its rooms all in order." },
      { on: "speech", transcript: "Run the morning rule", calls: [{ name: "trigger_rule", arguments: { rule_id: 1 } }], say: "I am sorry, I cannot do that." },
    ]);
    await page.locator("#talk").waitFor({ state: "visible" });
    await page.locator("#talk").tap();
    await page.locator("#voice").waitFor({ state: "visible" });
    await until(() => window.careflowWebApp.voice.transcripts.includes("assistant: Hello Rose, how can I help?"));
    // The fake's VAD hears the WAV's voiced part through the page's microphone.
    await until(() => window.careflowWebApp.voice.transcripts.includes("user: Which rooms do I have?"), 30000);
    // The tool ran on the server. Its spoken answer may be cut short by the next words of the
    // looping microphone file (the model's barge-in), so the answer that must play is the last one.
    await eventually("get_rooms run on the server", () => fake.sessions.at(-1)?.functionOutputs.get_rooms?.length, 30_000);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "webapp-voice.png") });
    await until(() => window.careflowWebApp.voice.transcripts.includes("assistant: I am sorry, I cannot do that."), 30000);

    const r = await report();
    assert.ok(r.voice.mic_chunks > 10, `microphone chunks sent: ${r.voice.mic_chunks}`);
    assert.ok(r.voice.frames > 0 && r.voice.bytes > 0, "the companion's audio arrived");
    assert.equal(r.voice.played, r.voice.frames, "every piece of it was scheduled on the page's audio output");
    assert.ok(fake.sessions.at(-1)!.functionOutputs.get_rooms?.length, "get_rooms ran on the server");
    assert.deepEqual(JSON.parse(fake.sessions.at(-1)!.functionOutputs.trigger_rule![0]), { error: "trigger_rule is not available to the voice companion" });
    assert.equal(await page.locator("#voice-words").innerText(), "I am sorry, I cannot do that.");
    // The tool's result is never on screen.
    assert.ok(!(await page.locator("body").innerText()).includes("room_name"));

    await page.locator("#voice-stop").tap();
    await until(() => window.careflowWebApp.voice.active === null);
    assert.equal(await page.locator("#voice").isVisible(), false);
    assert.deepEqual(pageErrors, []);
  });

  it("a prompt's question is asked aloud and answered by voice: the run resumes and the prompt leaves the screen", async () => {
    fake.setScript([
      { on: "response", say: "Rose, are you alright?" },
      { on: "speech", transcript: "I'm fine", calls: [{ name: "respond_to_interactive_prompt", arguments: { action: "dismiss" } }], say: "Good, rest well." },
    ]);
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Ask aloud", trigger_type: "manual" },
      steps: [
        { label: "ask", step_type: "interactive_prompt", schema_version: 1, config: { voice_prompt_template: "Are you alright?", countdown_seconds: 120 } },
      ],
      edges: [],
    });
    assert.equal(imported.status, 201, imported.text);
    const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
    await page.locator("#prompt").waitFor({ state: "visible" });
    await page.locator("#voice").waitFor({ state: "visible" });
    await until(() => window.careflowWebApp.voice.transcripts.includes("assistant: Rose, are you alright?"));
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "webapp-voice-prompt.png") });
    await until(() => window.careflowWebApp.voice.transcripts.includes("user: I'm fine"), 30000);
    await until(() => document.body.dataset.screen === "idle");
    for (let i = 0; i < 300; i++) {
      const run = (await t.get(`/api/v1/workflows/${exec}`)).body;
      if (run.status === "completed") {
        assert.equal(run.pipeline_data.interactive_response.channel, "pwa_realtime_ai");
        assert.equal(run.pipeline_data.interactive_response.action, "dismiss");
        break;
      }
      await new Promise((res) => setTimeout(res, 20));
      assert.ok(i < 299, "the run resumed");
    }
    await until(() => window.careflowWebApp.voice.active === null, 20000);
    assert.ok((await report()).voice.ended.some((e: string) => e.endsWith("the prompt was answered by voice")));
  });

  it("a quiz is answered by voice through the microphone: the screen follows each answer and the run ends with the score", async () => {
    await until(() => window.careflowWebApp.voice.active === null, 20000);
    const quizId = await insertQuiz(t.app.ctx);
    fake.setScript([
      { on: "response", calls: [{ name: "get_current_quiz_question" }], say: "Who comes for lunch on Sunday?" },
      {
        on: "speech",
        transcript: "Anna",
        calls: [{ name: "submit_quiz_answer", arguments: { question_ord: 1, choice_id: "c1" } }],
        say: "Right! What colour is the button?",
      },
      {
        on: "speech",
        transcript: "Red",
        calls: [{ name: "submit_quiz_answer", arguments: { question_ord: 2, choice_id: "c1" } }],
        say: "It is green. Which day is the market?",
      },
      {
        on: "speech",
        transcript: "Tuesday",
        calls: [{ name: "submit_quiz_answer", arguments: { question_ord: 3, choice_id: "c1" } }],
        say: "Yes! Two of three.",
      },
    ]);
    const imported = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Quiz aloud", trigger_type: "manual" },
      steps: [{ label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId, dedupe_minutes: 0 } }],
      edges: [],
    });
    assert.equal(imported.status, 201, imported.text);
    const exec = (await t.post(`/api/v1/rules/${imported.body.rule_id}/execute`)).body.execution_id as number;
    await page.locator("#quiz").waitFor({ state: "visible" });
    await until(() => window.careflowWebApp.voice.transcripts.includes("assistant: Who comes for lunch on Sunday?"));
    // The microphone's "speech" answers each question in turn; the screen moves with the answers.
    await until(() => document.getElementById("quiz-progress")?.textContent === "Question 2 of 3", 30000);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "webapp-voice-quiz.png") });
    await page.locator("#quiz-done").waitFor({ state: "visible", timeout: 60000 });
    assert.equal(await page.locator("#quiz-score").innerText(), "You got 2 of 3 right.");
    let run: any;
    for (let i = 0; i < 300; i++) {
      run = (await t.get(`/api/v1/workflows/${exec}`)).body;
      if (run.status === "completed") break;
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.equal(run.status, "completed");
    assert.equal(run.pipeline_data.quiz.status, "completed");
    assert.equal(run.pipeline_data.quiz.correct, 2);
    const detail = (await t.get(`/api/v1/knowledge-interactions/quiz-sessions/${run.pipeline_data.quiz.session_id}`)).body;
    assert.deepEqual(
      detail.responses.map((r: any) => [r.question_ord, r.chosen_choice_text, r.channel]),
      [
        [1, "Anna", "voice"],
        [2, "Red", "voice"],
        [3, "Tuesday", "voice"],
      ],
    );
    await page.locator("#quiz-ok").tap();
    assert.deepEqual(pageErrors, []);
  });

  it("a lost connection ends the conversation on screen and turns the microphone off; Talk comes back with the connection", async () => {
    await until(() => window.careflowWebApp.voice.active === null, 20000);
    fake.setScript([{ on: "response", say: "Hello again, Rose." }]);
    await page.locator("#talk").waitFor({ state: "visible" });
    await page.locator("#talk").tap();
    await until(() => window.careflowWebApp.voice.transcripts.includes("assistant: Hello again, Rose."));
    const chunks = (await report()).voice.mic_chunks;
    // The server side of the tablet's socket goes away, as when the Wi-Fi drops.
    for (const ws of (t.app.ctx.webapp as unknown as { clients: Map<{ terminate(): void }, unknown> }).clients.keys()) ws.terminate();
    await until(() => window.careflowWebApp.state === "disconnected");
    assert.equal((await report()).voice.active, null);
    assert.equal(await page.locator("#voice").isVisible(), false, "the conversation is off the screen");
    assert.equal(await page.locator("#talk").isVisible(), false, "no Talk button while disconnected");
    await new Promise((res) => setTimeout(res, 500));
    const after = (await report()).voice.mic_chunks;
    await new Promise((res) => setTimeout(res, 500));
    assert.equal((await report()).voice.mic_chunks, after, "nothing more from the microphone");
    assert.ok(after >= chunks);
    await until(() => window.careflowWebApp.state === "connected", 20000);
    await page.locator("#talk").waitFor({ state: "visible" });
    assert.deepEqual(pageErrors, []);
  });
});
