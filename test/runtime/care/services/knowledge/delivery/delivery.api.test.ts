/**
 * Cards and quizzes delivered by rules through the real app (Node-RED, the engine, `/ws`,
 * REST): a quiz answered to the end over `/ws` and REST while its run waits, then the run
 * continuing with the score; the dedupe window's `skipped` port; a quiz timing out or stopped
 * on the tablet; a card on the web app and an e-ink display with its receipts and its
 * dismissal; what a tablet connecting late is shown; the interactions endpoints and the tag
 * analytics; who may do what.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import WebSocket from "ws";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { sharpLib } from "../../../../../../runtime/care/services/eink/native-libs";
import { KEYS, startTestApp, type TestApp } from "../../../../../support/test-app";
import { eventually, importRule } from "../../../../../support/eventually";
import { drained } from "../../../../../support/ws-drained";
import { insertCard, insertDocument, insertQuiz } from "../../../../../support/knowledge-fixture";

type Frame = Record<string, any>;

class Tablet {
  readonly frames: Frame[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => this.frames.push(JSON.parse(String(data))));
  }
  static connect(url: string, key: string): Promise<Tablet> {
    return new Promise((resolve, reject) => {
      const tablet = new Tablet(new WebSocket(url, [key]));
      tablet.ws.once("open", () => resolve(tablet));
      tablet.ws.once("error", reject);
    });
  }
  next(match: (f: Frame) => boolean, what: string): Promise<Frame> {
    return eventually(`a ${what} frame (got ${this.frames.map((f) => f.type).join(", ")})`, () => this.frames.find(match), 5000);
  }
  send(frame: Frame): void {
    this.ws.send(JSON.stringify(frame));
  }
}

describe("knowledge delivery through rules", function () {
  this.timeout(60000);
  let t: TestApp;
  let clock: ManualClock;
  let tablet: Tablet;
  let quizId: number;
  let wsUrl: string;

  before(async () => {
    clock = new ManualClock(Date.parse("2026-11-22T08:00:00Z"));
    t = await startTestApp({ nodeRed: true, clock });
    quizId = await insertQuiz(t.app.ctx, { tags: ["family", "home"] });
    wsUrl = t.baseUrl.replace("http", "ws") + "/ws";
    tablet = await Tablet.connect(wsUrl, KEYS.webapp);
  });
  after(async () => {
    tablet.ws.close();
    await t.close();
  });

  let seq = 0;
  async function quizRule(config: Record<string, unknown>): Promise<number> {
    return importRule(t, {
      rule: { name: `Quiz ${++seq}`, trigger_type: "manual" },
      steps: [
        { label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId, ...config } },
        { label: "did well", step_type: "condition", schema_version: 1, config: { expression: "quiz.score >= 50" } },
      ],
      edges: [{ source_label: "quiz", source_port: "main", target_label: "did well" }],
    });
  }
  const execute = async (ruleId: number): Promise<number> => {
    const res = await t.post(`/api/v1/rules/${ruleId}/execute`);
    assert.equal(res.status, 201, res.text);
    return res.body.execution_id as number;
  };
  const run = (exec: number) => t.get(`/api/v1/workflows/${exec}`).then((r) => r.body as Frame);
  const until = (exec: number, status: string) => eventually(`run ${exec} ${status}`, async () => ((await run(exec)).status === status ? run(exec) : false));
  const questionFrame = (sessionId: number, ord: number) => (f: Frame) =>
    (f.type === "quiz_question" && f.session.session_id === sessionId && f.session.question?.ord === ord) ||
    (f.type === "quiz_answered" && f.session_id === sessionId && f.advance.question?.ord === ord);

  it("waits for the whole quiz, answered on the tablet and over REST, then continues with the score", async () => {
    const exec = await execute(await quizRule({ dedupe_minutes: 720 }));
    const shown = await tablet.next((f) => f.type === "quiz_question" && f.session.question?.ord === 1, "quiz_question");
    const sessionId = shown.session.session_id as number;
    assert.equal(shown.session.title, "Family and home");
    assert.deepEqual(
      shown.session.question.choices.map((c: Frame) => c.text),
      ["Anna", "Peter", "The doctor"],
    );
    assert.ok(shown.session.question.image_url, "the first question has its picture");
    assert.equal((await until(exec, "waiting")).pipeline_data.quiz.session_id, sessionId);

    tablet.send({ type: "quiz_answer", session_id: sessionId, question_ord: 1, choice_id: "c1" });
    const result = await tablet.next((f) => f.type === "quiz_answer_result" && f.question_ord === 1, "quiz_answer_result");
    assert.equal(result.is_correct, true);
    await tablet.next(questionFrame(sessionId, 2), "the second question");

    const ahead = await t.request("POST", `/api/v1/knowledge-interactions/quiz-sessions/${sessionId}/answers`, {
      key: KEYS.webapp,
      body: { question_ord: 3, choice_id: "c1" },
    });
    assert.equal(ahead.status, 409);
    assert.match(ahead.body.detail, /question 3 is not the current question .*\(the current one is 2\)/);
    const second = await t.request("POST", `/api/v1/knowledge-interactions/quiz-sessions/${sessionId}/answers`, {
      key: KEYS.webapp,
      body: { question_ord: 2, choice_id: "c2" },
    });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.advance.question.ord, 3);
    assert.equal((await run(exec)).status, "waiting", "the run still waits for the last question");

    tablet.send({ type: "quiz_answer", session_id: sessionId, question_ord: 3, choice_id: "c2" });
    const closed = await tablet.next((f) => f.type === "quiz_closed" && f.session.session_id === sessionId, "quiz_closed");
    assert.equal(closed.session.status, "completed");
    const done = await until(exec, "completed");
    assert.deepEqual(done.pipeline_data.quiz, {
      session_id: sessionId,
      quiz_id: quizId,
      status: "completed",
      score: 67,
      correct: 2,
      answered: 3,
      total: 3,
      completed_at: "2026-11-22T08:00:00.000Z",
    });
    assert.equal(done.pipeline_data.condition.result, true, "the step after it read the score");

    const late = await t.request("POST", `/api/v1/knowledge-interactions/quiz-sessions/${sessionId}/answers`, {
      key: KEYS.webapp,
      body: { question_ord: 3, choice_id: "c1" },
    });
    assert.equal(late.status, 200, "a repeat of an answered question gets its answer back");
    assert.equal(late.body.already_answered, true);
    assert.equal(late.body.chosen_choice_id, "c2");

    const detail = await t.get(`/api/v1/knowledge-interactions/quiz-sessions/${sessionId}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.status, "completed");
    assert.equal(detail.body.execution_id, exec);
    assert.deepEqual(
      detail.body.responses.map((r: Frame) => [r.question_ord, r.chosen_choice_text, r.is_correct, r.channel]),
      [
        [1, "Anna", true, "pwa"],
        [2, "Green", true, "rest"],
        [3, "Friday", false, "pwa"],
      ],
    );
  });

  it("skips a quiz already run within the dedupe window, on the skipped port", async () => {
    const exec = await execute(await quizRule({ dedupe_minutes: 720 }));
    const done = await until(exec, "completed");
    assert.equal(done.pipeline_data.quiz.status, "skipped");
    assert.match(done.pipeline_data.quiz.reason, /within the last 720 min/);
    assert.equal(done.pipeline_data.condition, undefined, "nothing after `main` ran");
  });

  it("continues with timed_out when nobody finishes the quiz in time", async () => {
    const exec = await execute(await quizRule({ dedupe_minutes: 0, timeout_minutes: 5 }));
    const shown = await tablet.next(
      (f) =>
        f.type === "quiz_question" &&
        f.session.status === "started" &&
        !f.session.answered_count &&
        f.session.expires_at === new Date(clock.now() + 5 * 60_000).toISOString(),
      "quiz",
    );
    await until(exec, "waiting");
    tablet.send({ type: "quiz_answer", session_id: shown.session.session_id, question_ord: 1, choice_id: "c1" });
    await tablet.next((f) => f.type === "quiz_answer_result" && f.session_id === shown.session.session_id, "answer result");
    clock.advance(5 * 60_000);
    const done = await until(exec, "completed");
    assert.equal(done.pipeline_data.quiz.status, "timed_out");
    assert.equal(done.pipeline_data.quiz.answered, 1, "what was answered is kept");
    assert.equal(done.pipeline_data.quiz.score, 33);
  });

  it("continues with abandoned when the senior stops the quiz", async () => {
    const exec = await execute(await quizRule({ dedupe_minutes: 0 }));
    await until(exec, "waiting");
    const sessionId = (await run(exec)).pipeline_data.quiz.session_id as number;
    tablet.send({ type: "quiz_abandon", session_id: sessionId });
    const done = await until(exec, "completed");
    assert.equal(done.pipeline_data.quiz.status, "abandoned");
    const listed = await t.get("/api/v1/knowledge-interactions/quiz-sessions?status=abandoned&date=2026-11-22");
    assert.ok(listed.body.some((s: Frame) => s.id === sessionId && s.quiz_title === "Family and home"));
    assert.deepEqual((await t.get("/api/v1/knowledge-interactions/quiz-sessions?date=2026-11-21")).body, [], "another day has none");
  });

  it("ends the quiz of a cancelled run, taking it off the tablet", async () => {
    const exec = await execute(await quizRule({ dedupe_minutes: 0 }));
    const sessionId = (await until(exec, "waiting")).pipeline_data.quiz.session_id as number;
    assert.equal((await t.post(`/api/v1/workflows/${exec}/cancel`)).status, 200);
    const closed = await tablet.next((f) => f.type === "quiz_closed" && f.session.session_id === sessionId, "quiz_closed");
    assert.equal(closed.session.status, "abandoned");
    assert.equal((await t.get(`/api/v1/knowledge-interactions/quiz-sessions/${sessionId}`)).body.status, "abandoned");
  });

  it("shows a card on the tablet and the e-ink display, records each channel and the dismissal", async () => {
    const cardId = await insertCard(t.app.ctx, { picture: true });
    const ruleId = await importRule(t, {
      rule: { name: "Card", trigger_type: "manual" },
      steps: [
        {
          label: "card",
          step_type: "info_card",
          schema_version: 1,
          config: { card_id: cardId, channels: ["pwa", "eink", "voice"], eink_targets: ["hall_display"] },
        },
      ],
      edges: [],
    });
    const exec = await execute(ruleId);
    const frame = await tablet.next((f) => f.type === "info_card" && f.card.id === cardId, "info_card");
    assert.equal(frame.card.title, "Anna visits on Sunday");
    assert.equal(frame.card.images.length, 1);
    assert.equal(frame.card.images[0].alt_text, "Anna smiling");
    const picture = await fetch(t.baseUrl + frame.card.images[0].url);
    assert.equal(picture.status, 200, "the picture's signed URL needs no key");
    const done = await until(exec, "completed");
    const receipts = done.step_timings[0].receipts as Frame[];
    assert.deepEqual(
      receipts.map((r) => [r.channel, r.delivered]),
      [
        ["pwa", true],
        ["eink", true],
        ["voice", false],
      ],
    );
    assert.match(receipts[1].detail, /shown on hall_display until .* with its picture/);
    assert.match(receipts[2].detail, /no voice model is set up/);
    assert.equal(done.pipeline_data.info_card.delivery_id, frame.delivery_id);

    const png = await fetch(`${t.baseUrl}/api/v1/image/active/hall_display`, { headers: { "x-api-key": KEYS.admin } });
    assert.equal(png.status, 200);
    const bytes = Buffer.from(await png.arrayBuffer());
    fs.mkdirSync("test-output/screenshots", { recursive: true });
    fs.writeFileSync("test-output/screenshots/eink-info-card.png", bytes);
    const img = sharpLib()(bytes);
    const meta = await img.metadata();
    assert.deepEqual([meta.width, meta.height], [800, 480]);
    const { data } = await img.raw().toBuffer({ resolveWithObject: true });
    assert.ok(
      [...data].every((v) => v === 0 || v === 255),
      "black and white only",
    );

    // A tablet connecting now is shown the card not yet put away.
    const late = await Tablet.connect(wsUrl, KEYS.webapp);
    await late.next((f) => f.type === "info_card" && f.delivery_id === frame.delivery_id, "replayed info_card");
    clock.advance(90_000);
    tablet.send({ type: "info_card_dismiss", delivery_id: frame.delivery_id });
    await late.next((f) => f.type === "info_card_closed" && f.delivery_id === frame.delivery_id, "info_card_closed on the other tablet");
    late.ws.close();
    const deliveries = await t.get("/api/v1/knowledge-interactions/info-card-deliveries?date=2026-11-22");
    const d = deliveries.body.find((x: Frame) => x.id === frame.delivery_id);
    assert.equal(d.dismissed_by, "test web app");
    assert.equal(Date.parse(d.dismissed_at) - Date.parse(d.delivered_at), 90_000);
    assert.ok(d.viewed_at);
    assert.deepEqual(d.channels, ["pwa", "eink", "voice"]);
    assert.equal(d.receipt.pwa.delivered, true);
    const again = await Tablet.connect(wsUrl, KEYS.webapp);
    await t.app.ctx.webapp.greeted(); // the replay to a new tablet has sent all it sends,
    await drained(again.ws); // and this tablet has received it
    assert.ok(!again.frames.some((f) => f.type === "info_card" && f.delivery_id === frame.delivery_id), "a card put away is not shown again");
    again.ws.close();
  });

  it("fails the step for a card that is not approved, saying so", async () => {
    const draft = await insertCard(t.app.ctx, { status: "draft" });
    const ruleId = await importRule(t, {
      rule: { name: "Draft card", trigger_type: "manual" },
      steps: [{ label: "card", step_type: "info_card", schema_version: 1, config: { card_id: draft } }],
      edges: [],
    });
    const exec = await execute(ruleId);
    const finished = await eventually("the run ended", async () => {
      const r = await run(exec);
      return !["running", "waiting"].includes(r.status) && r;
    });
    assert.equal(finished.status, "failed");
    assert.match(JSON.stringify(finished), /card_id: card \d+ is draft; only an approved card is shown/);
  });

  it("counts documents, quizzes and average scores per tag", async () => {
    await insertDocument(t.app.ctx.db, ["family"]);
    await insertDocument(t.app.ctx.db, ["family", "health"]);
    await insertDocument(t.app.ctx.db, ["old"], "archived");
    const res = await t.get("/api/v1/knowledge/analytics/tags", KEYS.caregiver);
    assert.equal(res.status, 200);
    const by = Object.fromEntries(res.body.map((s: Frame) => [s.tag, s]));
    assert.deepEqual(by.family, { tag: "family", document_count: 2, quiz_count: 1, average_score: 67, completed_sessions: 1 });
    assert.deepEqual(by.home, { tag: "home", document_count: 0, quiz_count: 1, average_score: 67, completed_sessions: 1 });
    assert.deepEqual(by.health, { tag: "health", document_count: 1, quiz_count: 0, average_score: null, completed_sessions: 0 });
    assert.equal(by.old, undefined, "an archived document is not counted");
  });

  it("lets the tablet answer but not read; caregivers read but do not answer", async () => {
    assert.equal((await t.get("/api/v1/knowledge-interactions/quiz-sessions", KEYS.webapp)).status, 403);
    assert.equal((await t.get("/api/v1/knowledge-interactions/quiz-sessions", KEYS.caregiver)).status, 200);
    const r = await t.request("POST", "/api/v1/knowledge-interactions/quiz-sessions/1/answers", {
      key: KEYS.caregiver,
      body: { question_ord: 1, choice_id: "c1" },
    });
    assert.equal(r.status, 403);
    assert.equal((await t.get("/api/v1/knowledge-interactions/quiz-sessions/999999")).status, 404);
    assert.equal((await t.get("/api/v1/knowledge-interactions/quiz-sessions?date=yesterday")).status, 422);
  });
});
