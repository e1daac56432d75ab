/**
 * A quiz answered by voice: with a realtime model configured (the fake of
 * test/fakes/realtime-server.ts), `quiz_start` has the voice companion run the quiz; its
 * conversation is offered the quiz tools, which act on this session only, and the senior's
 * spoken answers go through them to the end; the run continues with the score.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { pcm16Silence, pcm16Tone, startFakeRealtime, type FakeRealtime } from "../../../../../fakes/realtime-server";
import { eventually, importRule } from "../../../../../support/eventually";
import { insertCard, insertQuiz } from "../../../../../support/knowledge-fixture";
import { KEYS, startTestApp, type TestApp } from "../../../../../support/test-app";

type Frame = Record<string, any>;

describe("a quiz answered by voice", function () {
  this.timeout(30000);
  let fake: FakeRealtime;
  let t: TestApp;
  let ws: WebSocket;
  const frames: Frame[] = [];

  before(async () => {
    fake = await startFakeRealtime();
    t = await startTestApp({
      nodeRed: true,
      clock: new ManualClock(Date.parse("2026-11-25T08:00:00Z")),
      settings: {
        llm: { realtime: { url: fake.url, model: "fake-realtime-1", voice: "verse", idle_seconds: 30 } },
        knowledge: { voice_defaults: { info_card_default: "Read the card slowly, like a letter from family." } },
      },
    });
    ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws`, [KEYS.webapp]);
    ws.on("message", (data, binary) => (binary ? undefined : frames.push(JSON.parse(String(data)))));
    await new Promise((r) => ws.once("open", r));
  });
  after(async () => {
    ws?.close();
    await t?.close();
    await fake?.close();
  });

  /** The senior says something: 600 ms of voice and 800 ms of quiet, in 100 ms microphone chunks. */
  const speak = (sessionId: string): void => {
    const pcm = Buffer.concat([pcm16Tone(600), pcm16Silence(800)]);
    for (let at = 0; at < pcm.length; at += 4800)
      ws.send(JSON.stringify({ type: "voice_audio", session_id: sessionId, audio: pcm.subarray(at, at + 4800).toString("base64") }));
  };
  const said = (text: string) => eventually(`the companion said "${text}"`, () => frames.some((f) => f.subtype === "transcript" && f.text === text), 5000);

  it("asks each question aloud and records the spoken answers to the end; the run continues with the score", async () => {
    const quizId = await insertQuiz(t.app.ctx, { intro: "Let's play {{title}}!" });
    fake.setScript([
      { on: "response", calls: [{ name: "get_current_quiz_question" }], say: "Who comes for lunch on Sunday?" },
      {
        on: "speech",
        transcript: "Anna",
        calls: [{ name: "submit_quiz_answer", arguments: { session_id: 424242, question_ord: 1, choice_id: "c1" } }],
        say: "Right! What colour is the button?",
      },
      {
        on: "speech",
        transcript: "green",
        calls: [{ name: "submit_quiz_answer", arguments: { question_ord: 2, open_ended_text: "Green" } }],
        say: "Yes! Which day is the market?",
      },
      {
        on: "speech",
        transcript: "Friday",
        calls: [{ name: "submit_quiz_answer", arguments: { question_ord: 3, choice_id: "c2" } }],
        say: "It is Tuesday. You got two of three.",
      },
    ]);
    const ruleId = await importRule(t, {
      rule: { name: "Voice quiz", trigger_type: "manual" },
      steps: [{ label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId, voice_instruction: "Be cheerful." } }],
      edges: [],
    });
    const exec = (await t.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    const start = await eventually("the conversation started", () => frames.find((f) => f.subtype === "session_start"));
    const session = fake.sessions.at(-1)!;
    const offered = session.config.tools.map((x) => x.name);
    for (const tool of ["get_current_quiz_question", "submit_quiz_answer", "complete_quiz_session"]) assert.ok(offered.includes(tool), `${tool} is offered`);
    assert.match(session.config.instructions, /^Be cheerful\./, "the step's voice instruction comes first");
    assert.ok(
      session.items.some((i) => JSON.stringify(i).includes("Let's play Family and home!")),
      "the quiz's intro opens it",
    );
    const first = JSON.parse((await eventually("the question was read", () => fake.sessions.at(-1)!.functionOutputs.get_current_quiz_question?.[0])) as string);
    assert.equal(first.question.question_text, "Who comes for lunch on Sunday?");

    await said("Who comes for lunch on Sunday?");
    speak(start.session_id);
    await said("Right! What colour is the button?");
    speak(start.session_id);
    await said("Yes! Which day is the market?");
    speak(start.session_id);
    const run = await eventually("the run completed", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return r.status === "completed" && r;
    });
    assert.equal(run.pipeline_data.quiz.status, "completed");
    assert.equal(run.pipeline_data.quiz.score, 67);
    const detail = (await t.get(`/api/v1/knowledge-interactions/quiz-sessions/${run.pipeline_data.quiz.session_id}`)).body;
    assert.deepEqual(
      detail.responses.map((r: Frame) => [r.question_ord, r.chosen_choice_text, r.channel]),
      [
        [1, "Anna", "voice"],
        [2, "Green", "voice"],
        [3, "Friday", "voice"],
      ],
    );
    await said("It is Tuesday. You got two of three.");
    await eventually("the conversation ended with the quiz", () => frames.some((f) => f.subtype === "session_end" && f.session_id === start.session_id));
  });

  it("says an info card on the voice channel with the card's own voice instruction", async () => {
    const cardId = await insertCard(t.app.ctx, { voice_instruction: "Say it like good news." });
    fake.setScript([{ on: "response", say: "Anna is coming on Sunday!" }]);
    const before = fake.sessions.length;
    const ruleId = await importRule(t, {
      rule: { name: "Voice card", trigger_type: "manual" },
      steps: [{ label: "card", step_type: "info_card", schema_version: 1, config: { card_id: cardId, channels: ["voice"] } }],
      edges: [],
    });
    const exec = (await t.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
    const run = await eventually("the run completed", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return r.status === "completed" && r;
    });
    assert.equal(run.step_timings[0].receipts[0].delivered, true, JSON.stringify(run.step_timings[0].receipts));
    assert.match(run.step_timings[0].receipts[0].detail, /spoken by the voice companion/);
    await said("Anna is coming on Sunday!");
    const session = fake.sessions[before] ?? fake.sessions.at(-1)!;
    assert.match(session.config.instructions, /^Say it like good news\./);
    assert.ok(session.items.some((i) => JSON.stringify(i).includes("Anna visits on Sunday. Your granddaughter Anna comes for lunch")));
  });

  it("says a card without its own voice instruction with info_card_default (knowledge.voice_defaults)", async () => {
    // The card before is still being talked about: end that conversation first.
    const { active } = (await t.get("/api/v1/voice/sessions")).body;
    if (active) await t.request("DELETE", `/api/v1/voice/sessions/${active.session_id}`);
    const cardId = await insertCard(t.app.ctx, { voice_instruction: null });
    fake.setScript([{ on: "response", say: "A card for you." }]);
    const before = fake.sessions.length;
    const ruleId = await importRule(t, {
      rule: { name: "Voice card, default", trigger_type: "manual" },
      steps: [{ label: "card", step_type: "info_card", schema_version: 1, config: { card_id: cardId, channels: ["voice"] } }],
      edges: [],
    });
    await t.post(`/api/v1/rules/${ruleId}/execute`);
    await said("A card for you.");
    const session = fake.sessions[before] ?? fake.sessions.at(-1)!;
    assert.match(session.config.instructions, /^Read the card slowly, like a letter from family\./);
  });
});
