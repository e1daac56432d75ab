/**
 * Quiz sessions: the `quiz_start` step starts one, the senior answers it on the tablet (a
 * tap, over `/ws`), by voice (the companion's quiz tools) or an agent over MCP, one question
 * at a time; it ends completed (every question answered), abandoned (stopped early) or
 * timed out (on the app clock). Whoever ends it first wins; the run that started it, parked
 * at its step, then continues with `quiz.*` in pipeline_data (see quiz-run.ts).
 *
 * Answers are idempotent per question: the first answer to a question counts, a repeat gets
 * the same result back. An answer to another question than the current one, or to an ended
 * session, is a 409 that says which question is current or how the session ended.
 */
import { NO_WEB_APP } from "../../../../../vocabulary/tablet";
import type { QuizStartRequest, QuizStarted } from "../../../../../vocabulary/knowledge";
import type { CareContext } from "../../../core/context";
import { isoAt, isoNow } from "../../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../../platform/core/errors";
import type { DeliverableQuiz } from "../deliverable";
import { quizForDelivery } from "../quizzes/quiz-delivery.read";
import { judge, rightChoice, type GivenAnswer } from "./quiz-answers";
import { armTimeout, disarmTimeout, isArmed, resumeRun } from "./quiz-run";
import {
  ENDED_STATUSES,
  endSession,
  insertSession,
  openSessions,
  openSessionsOf,
  recentSession,
  recordAnswer,
  responsesOf,
  sessionById,
  type SessionRow,
  type SessionStatus,
} from "./quiz-sessions.store";
import { currentQuestion, runData, scoreOf, sessionView, type SessionView } from "./quiz-view";
import { startQuizConversation } from "./quiz-voice";

/** Where an answer came from (quiz_responses.channel). */
export type AnswerChannel = "pwa" | "voice" | "mcp" | "rest";

export interface AnswerResult {
  session_id: number;
  question_ord: number;
  /** True when this question had been answered before: the first answer stands and is what is shown. */
  already_answered: boolean;
  is_correct: boolean | null;
  chosen_choice_id: string | null;
  correct_choice_id: string | null;
  correct_choice_text: string | null;
  explanation: string;
  /** What comes next: the next question, or done with the score. */
  advance:
    | { done: false; question: NonNullable<SessionView["question"]> }
    | { done: true; status: SessionStatus; score: number; correct: number; answered: number; total: number };
  session: SessionView;
}

async function approvedQuiz(ctx: CareContext, id: number, field = "quiz_id"): Promise<DeliverableQuiz> {
  const quiz = await quizForDelivery(ctx.db, id);
  if (!quiz) throw new ValidationError(`${field}: quiz ${id} not found`);
  if (quiz.status !== "approved") throw new ValidationError(`${field}: quiz ${id} is ${quiz.status}; only an approved quiz is put to the senior`);
  if (quiz.questions.length === 0) throw new ValidationError(`${field}: quiz ${id} has no questions`);
  return quiz;
}

async function loadSession(ctx: CareContext, id: number): Promise<{ session: SessionRow; quiz: DeliverableQuiz }> {
  const session = await sessionById(ctx.db, id);
  if (!session) throw new NotFoundError(`Quiz session ${id} not found`);
  const quiz = await quizForDelivery(ctx.db, session.quiz_id);
  if (!quiz) throw new NotFoundError(`Quiz ${session.quiz_id} of session ${id} not found`);
  return { session, quiz };
}

export async function startQuiz(ctx: CareContext, req: QuizStartRequest, signal?: AbortSignal): Promise<QuizStarted> {
  const quiz = await approvedQuiz(ctx, req.quiz_id);
  const now = ctx.clock.now();
  if (req.dedupe_minutes > 0) {
    const previous = await recentSession(ctx.db, quiz.id, req.senior_id, isoAt(now - req.dedupe_minutes * 60_000));
    if (previous)
      return {
        started: false,
        reason: `quiz ${quiz.id} was started for ${req.senior_id ?? "the senior"} at ${previous.started_at} (session ${previous.id}), within the last ${req.dedupe_minutes} min`,
        previous_session_id: previous.id,
        previous_started_at: previous.started_at,
      };
  }
  // One quiz at a time on the senior's screen: an older one still open steps aside.
  for (const old of await openSessionsOf(ctx.db, req.senior_id)) await endAs(ctx, old.id, "abandoned", "a newer quiz was started");
  const session = await insertSession(ctx.db, {
    quiz_id: quiz.id,
    rule_id: req.rule_id,
    execution_id: req.execution_id,
    step_id: req.step_id,
    senior_id: req.senior_id,
    status: "started",
    current_question_ord: quiz.questions[0].ord,
    question_count: quiz.questions.length,
    started_at: isoAt(now),
    last_activity_at: isoAt(now),
    expires_at: isoAt(now + req.timeout_minutes * 60_000),
  });
  armTimeout(ctx, session, (id) => timeOut(ctx, id));
  const view = await sessionView(ctx, quiz, session);
  const clients = ctx.webapp.broadcast({ type: "quiz_question", session: view });
  const voice = clients > 0 ? await startQuizConversation(ctx, quiz, session, req.voice_instruction, signal) : NO_WEB_APP;
  ctx.log.info({ session_id: session.id, quiz_id: quiz.id, clients, voice }, "quiz: session started");
  return {
    started: true,
    session_id: session.id,
    quiz_title: quiz.title,
    question_count: quiz.questions.length,
    expires_at: session.expires_at!,
    timed_out_data: runData({ ...session, status: "timed_out" }),
    clients,
    voice,
  };
}

/** The session asked for, or the newest one still open. */
export async function current(ctx: CareContext, sessionId?: number): Promise<SessionView> {
  let id = sessionId;
  if (id === undefined) {
    const open = await openSessions(ctx.db);
    if (open.length === 0) throw new NotFoundError("No quiz session is open");
    id = open[open.length - 1].id;
  }
  const { session, quiz } = await loadSession(ctx, id);
  return sessionView(ctx, quiz, session);
}

export async function answer(ctx: CareContext, sessionId: number, questionOrd: number, given: GivenAnswer, channel: AnswerChannel): Promise<AnswerResult> {
  const { session, quiz } = await loadSession(ctx, sessionId);
  const question = quiz.questions.find((q) => q.ord === questionOrd);
  if (!question) throw new ValidationError(`question_ord: quiz ${quiz.id} has no question ${questionOrd} (${quiz.questions.map((q) => q.ord).join(", ")})`);
  const earlier = (await responsesOf(ctx.db, sessionId)).find((r) => r.question_ord === questionOrd);
  if (earlier) return result(ctx, sessionId, questionOrd, true, earlier.chosen_choice_id, earlier.is_correct);
  if (ENDED_STATUSES.includes(session.status)) throw new ConflictError(`Quiz session ${sessionId} is ${session.status}; it takes no more answers`);
  if (ctx.clock.now() >= Date.parse(session.expires_at ?? "")) {
    await timeOut(ctx, sessionId);
    throw new ConflictError(`Quiz session ${sessionId} is timed_out; it takes no more answers`);
  }
  const now = currentQuestion(quiz, session);
  if (!now || now.ord !== questionOrd)
    throw new ConflictError(
      `question_ord: question ${questionOrd} is not the current question of session ${sessionId} (the current one is ${now?.ord ?? "none"})`,
    );
  const judged = judge(question, given);
  const at = ctx.clock.now();
  const recorded = await recordAnswer(
    ctx.db,
    {
      session_id: sessionId,
      question_id: question.id,
      question_ord: question.ord,
      question_text: question.question_text,
      ...judged,
      channel,
      answered_at: isoAt(at),
      latency_ms: Math.max(0, at - Date.parse(session.last_activity_at)),
    },
    { expectedOrd: session.current_question_ord, current_question_ord: question.ord + 1 },
  );
  // Another answer to this question won the race: it is the one that counts.
  if (!recorded) return answer(ctx, sessionId, questionOrd, given, channel);
  const after = (await sessionById(ctx.db, sessionId))!;
  if (!currentQuestion(quiz, after)) await endAs(ctx, sessionId, "completed", "every question was answered");
  const out = await result(ctx, sessionId, questionOrd, false, judged.chosen_choice_id, judged.is_correct);
  ctx.webapp.broadcast({ type: "quiz_answered", ...out });
  return out;
}

async function result(
  ctx: CareContext,
  sessionId: number,
  questionOrd: number,
  already: boolean,
  chosen: string | null,
  isCorrect: boolean | null,
): Promise<AnswerResult> {
  const { session, quiz } = await loadSession(ctx, sessionId);
  const q = quiz.questions.find((x) => x.ord === questionOrd)!;
  const right = rightChoice(q);
  const view = await sessionView(ctx, quiz, session);
  return {
    session_id: sessionId,
    question_ord: questionOrd,
    already_answered: already,
    is_correct: isCorrect,
    chosen_choice_id: chosen,
    correct_choice_id: right?.id ?? null,
    correct_choice_text: right?.text ?? (q.expected_answer || null),
    explanation: q.explanation,
    advance: view.question
      ? { done: false, question: view.question }
      : {
          done: true,
          status: session.status,
          score: view.score,
          correct: session.correct_count,
          answered: session.answered_count,
          total: session.question_count,
        },
    session: view,
  };
}

/** Ends the session now: completed when every question is answered, else abandoned (stopped early). Idempotent. */
export async function complete(ctx: CareContext, sessionId: number): Promise<SessionView> {
  const { session, quiz } = await loadSession(ctx, sessionId);
  if (!ENDED_STATUSES.includes(session.status)) {
    const status = currentQuestion(quiz, session) ? "abandoned" : "completed";
    await endAs(ctx, sessionId, status, status === "completed" ? "completed" : "ended before every question was answered");
  }
  return current(ctx, sessionId);
}

/** The senior stopped the quiz. */
export async function abandon(ctx: CareContext, sessionId: number, by: string): Promise<SessionView> {
  const { session } = await loadSession(ctx, sessionId);
  if (!ENDED_STATUSES.includes(session.status)) await endAs(ctx, sessionId, "abandoned", `stopped by ${by}`);
  return current(ctx, sessionId);
}

export async function timeOut(ctx: CareContext, sessionId: number): Promise<void> {
  await endAs(ctx, sessionId, "timed_out", "nobody answered in time");
}

/** The one way a session ends: recorded once, the screens told, the run resumed. */
async function endAs(ctx: CareContext, sessionId: number, status: SessionStatus, why: string): Promise<void> {
  const session = await sessionById(ctx.db, sessionId);
  if (!session) return;
  const at = status === "timed_out" && session.expires_at ? session.expires_at : isoNow(ctx.clock);
  if (!(await endSession(ctx.db, sessionId, status, at))) return;
  disarmTimeout(ctx, sessionId);
  const ended = (await sessionById(ctx.db, sessionId))!;
  ctx.log.info({ session_id: sessionId, status, score: scoreOf(ended.correct_count, ended.question_count), why }, "quiz: session ended");
  const quiz = await quizForDelivery(ctx.db, ended.quiz_id);
  if (quiz) ctx.webapp.broadcast({ type: "quiz_closed", session: await sessionView(ctx, quiz, ended) });
  ctx.bus.publish("quiz.ended", { session_id: sessionId, status });
  await resumeRun(ctx, ended);
}

/** Re-arms the timeouts of open sessions after a start (a restart): an expired one times out now. */
export async function armOpenSessions(ctx: CareContext): Promise<void> {
  for (const s of await openSessions(ctx.db)) armTimeout(ctx, s, (id) => timeOut(ctx, id));
}

/**
 * Cluster: arms the open sessions this instance has no timer for (started through another
 * instance, perhaps one that died); the first to time a session out wins its row.
 */
export async function adoptOpenSessions(ctx: CareContext): Promise<void> {
  for (const s of await openSessions(ctx.db)) if (!isArmed(ctx, s.id)) armTimeout(ctx, s, (id) => timeOut(ctx, id));
}

/** A run that was cancelled or failed while its quiz was open: the quiz ends too (nobody waits for it). */
export async function endSessionsOfRun(ctx: CareContext, executionId: number, why: string): Promise<void> {
  for (const s of await openSessions(ctx.db)) if (s.execution_id === executionId) await endAs(ctx, s.id, "abandoned", why);
}
