/**
 * Quiz sessions on the app clock, without a run: a whole quiz answered to the end, answers
 * idempotent per question, out-of-order and late answers refused with a 409 that says why,
 * the dedupe window per senior, the timeout on the clock, and an open session's timeout
 * re-armed when the app starts again.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { ConflictError, ValidationError } from "../../../../../../runtime/platform/core/errors";
import { abandon, answer, complete, current, startQuiz, timeOut } from "../../../../../../runtime/care/services/knowledge/delivery";
import { armOpenSessions } from "../../../../../../runtime/care/services/knowledge/delivery/quiz-sessions.service";
import { disarmAll } from "../../../../../../runtime/care/services/knowledge/delivery/quiz-run";
import { startTestApp, type TestApp } from "../../../../../support/test-app";
import { eventually } from "../../../../../support/eventually";
import { insertQuiz } from "../../../../../support/knowledge-fixture";

const request = (quiz_id: number, over: Record<string, unknown> = {}) => ({
  quiz_id,
  senior_id: "grandma_rose",
  dedupe_minutes: 60,
  timeout_minutes: 30,
  voice_instruction: null,
  rule_id: null,
  execution_id: null,
  step_id: null,
  ...over,
});

describe("quiz sessions", function () {
  this.timeout(30000);
  let t: TestApp;
  let clock: ManualClock;
  let quizId: number;

  before(async () => {
    clock = new ManualClock(Date.parse("2026-11-22T08:00:00Z"));
    t = await startTestApp({ clock });
    quizId = await insertQuiz(t.app.ctx);
  });
  after(() => t.close());

  const start = async (over: Record<string, unknown> = {}) => {
    const s = await startQuiz(t.app.ctx, request(quizId, over));
    assert.ok(s.started, JSON.stringify(s));
    return s.session_id;
  };

  it("goes question by question to the end, and completes with the score", async () => {
    const id = await start({ senior_id: "to_the_end" });
    const first = await current(t.app.ctx, id);
    assert.equal(first.status, "started");
    assert.equal(first.question?.number, 1);
    assert.equal(first.question?.of, 3);
    assert.match(first.question?.image_url ?? "", /^\/api\/v1\/media\/[0-9a-f]{64}\.png\?expires=\d+&sig=/, "the question's picture is a signed URL");
    assert.ok(!("is_correct" in (first.question?.choices[0] ?? {})), "the right answer is not shown before it is given");
    const a1 = await answer(t.app.ctx, id, 1, { choice_id: "c1" }, "pwa");
    assert.equal(a1.is_correct, true);
    assert.equal(a1.advance.done, false);
    assert.equal(a1.advance.done === false && a1.advance.question.ord, 2);
    const a2 = await answer(t.app.ctx, id, 2, { choice_id: "c1" }, "pwa");
    assert.equal(a2.is_correct, false);
    assert.equal(a2.correct_choice_text, "Green");
    assert.equal(a2.explanation, "The green button turns it on.");
    const a3 = await answer(t.app.ctx, id, 3, { open_ended_text: "tuesday" }, "voice");
    assert.equal(a3.is_correct, true, "a choice said in words counts");
    assert.deepEqual(a3.advance, { done: true, status: "completed", score: 67, correct: 2, answered: 3, total: 3 });
    const done = await current(t.app.ctx, id);
    assert.equal(done.status, "completed");
    assert.equal(done.question, null);
  });

  it("keeps the first answer to a question; a repeat gets it back", async () => {
    const id = await start({ senior_id: "twice" });
    const first = await answer(t.app.ctx, id, 1, { choice_id: "c2" }, "pwa");
    const again = await answer(t.app.ctx, id, 1, { choice_id: "c1" }, "voice");
    assert.equal(first.already_answered, false);
    assert.equal(again.already_answered, true);
    assert.equal(again.chosen_choice_id, "c2", "the first answer stands");
    assert.equal(again.is_correct, false);
    const s = await current(t.app.ctx, id);
    assert.equal(s.answered_count, 1);
    assert.equal(s.question?.ord, 2);
  });

  it("refuses an answer to another question than the current one with a 409 naming it", async () => {
    const id = await start({ senior_id: "out_of_order" });
    await assert.rejects(answer(t.app.ctx, id, 3, { choice_id: "c1" }, "mcp"), (e: Error) => {
      assert.ok(e instanceof ConflictError);
      assert.match(e.message, /question 3 is not the current question .*\(the current one is 1\)/);
      return true;
    });
    await assert.rejects(answer(t.app.ctx, id, 9, { choice_id: "c1" }, "mcp"), ValidationError);
    await assert.rejects(answer(t.app.ctx, id, 1, { choice_id: "c9" }, "mcp"), /choice_id/);
  });

  it("refuses answers to an ended session", async () => {
    const id = await start({ senior_id: "stopped" });
    const ended = await abandon(t.app.ctx, id, "test");
    assert.equal(ended.status, "abandoned");
    await assert.rejects(answer(t.app.ctx, id, 1, { choice_id: "c1" }, "pwa"), /is abandoned; it takes no more answers/);
    assert.equal((await complete(t.app.ctx, id)).status, "abandoned", "ending it again changes nothing");
  });

  it("does not start the same quiz for the same senior within the dedupe window", async () => {
    const first = await start({ senior_id: "dedupe" });
    const again = await startQuiz(t.app.ctx, request(quizId, { senior_id: "dedupe" }));
    assert.equal(again.started, false);
    assert.ok(!again.started && again.previous_session_id === first);
    assert.match(!again.started ? again.reason : "", /within the last 60 min/);
    const other = await startQuiz(t.app.ctx, request(quizId, { senior_id: "someone_else" }));
    assert.equal(other.started, true, "another senior is not held by it");
    clock.advance(61 * 60_000);
    const later = await startQuiz(t.app.ctx, request(quizId, { senior_id: "dedupe" }));
    assert.equal(later.started, true, "after the window it starts again");
    assert.equal((await current(t.app.ctx, first)).status, "timed_out", "the old session timed out meanwhile");
  });

  it("times out an unfinished session on the clock, keeping what was answered", async () => {
    const id = await start({ senior_id: "slow", timeout_minutes: 10 });
    await answer(t.app.ctx, id, 1, { choice_id: "c1" }, "pwa");
    clock.advance(9 * 60_000);
    assert.equal((await current(t.app.ctx, id)).status, "in_progress");
    clock.advance(60_000);
    const s = await eventually("the session timed out", async () => {
      const v = await current(t.app.ctx, id);
      return v.status === "timed_out" && v;
    });
    assert.equal(s.answered_count, 1);
    assert.equal(s.correct_count, 1);
  });

  it("times out a session whose time ran out while the app was stopped, once it starts again", async () => {
    const id = await start({ senior_id: "restart", timeout_minutes: 5 });
    disarmAll(t.app.ctx); // as after a stop: no timer is armed any more
    clock.advance(6 * 60_000);
    assert.equal((await current(t.app.ctx, id)).status, "started");
    await armOpenSessions(t.app.ctx);
    await eventually("the session timed out", async () => (await current(t.app.ctx, id)).status === "timed_out");
  });

  it("refuses to start a quiz that is not approved or has no questions", async () => {
    const draft = await insertQuiz(t.app.ctx, { status: "draft" });
    await assert.rejects(startQuiz(t.app.ctx, request(draft)), /quiz_id: quiz \d+ is draft/);
    const empty = await insertQuiz(t.app.ctx, { questions: [] });
    await assert.rejects(startQuiz(t.app.ctx, request(empty)), /has no questions/);
    await assert.rejects(startQuiz(t.app.ctx, request(999999)), /not found/);
    await timeOut(t.app.ctx, 999999); // an unknown session: nothing to do
  });
});
