/**
 * What the senior's screen, the voice companion and agents are shown of a quiz session: one
 * question at a time (never the right answer before it is given), its image as a signed URL.
 */
import type { CareContext } from "../../../core/context";
import { signedUrl } from "../../../../household/media/media.service";
import type { DeliverableQuestion, DeliverableQuiz, DeliverableSlot } from "../deliverable";
import type { SessionRow, SessionStatus } from "./quiz-sessions.store";

export interface QuestionView {
  ord: number;
  /** 1-based position and the number of questions: "Question 2 of 5". */
  number: number;
  of: number;
  question_type: DeliverableQuestion["question_type"];
  question_text: string;
  choices: Array<{ id: string; text: string }>;
  image_url: string | null;
  image_alt: string;
}

export interface SessionView {
  session_id: number;
  quiz_id: number;
  title: string;
  status: SessionStatus;
  senior_id: string | null;
  question_count: number;
  answered_count: number;
  correct_count: number;
  /** Percentage of the questions answered right (0–100). */
  score: number;
  expires_at: string | null;
  /** The question to answer now; null when the session has ended or every question is answered. */
  question: QuestionView | null;
}

export const scoreOf = (correct: number, total: number): number => (total > 0 ? Math.round((correct / total) * 100) : 0);

/** The question a session is at: the first with `ord` at or after the session's position. */
export function currentQuestion(quiz: DeliverableQuiz, session: Pick<SessionRow, "current_question_ord">): DeliverableQuestion | undefined {
  return quiz.questions.find((q) => q.ord >= session.current_question_ord);
}

/** The web app's picture of a slot: its `pwa` variant (else any), signed. */
export async function imageUrl(ctx: CareContext, slot: DeliverableSlot | null): Promise<string | null> {
  if (!slot) return null;
  const variant = slot.variants.find((v) => v.surface === "pwa") ?? slot.variants[0];
  if (!variant) return null;
  try {
    return await signedUrl(ctx, variant.object_name);
  } catch (err) {
    ctx.log.warn({ err, object_name: variant.object_name }, "knowledge: an image could not be signed");
    return null;
  }
}

export async function questionView(ctx: CareContext, quiz: DeliverableQuiz, q: DeliverableQuestion): Promise<QuestionView> {
  return {
    ord: q.ord,
    number: quiz.questions.indexOf(q) + 1,
    of: quiz.questions.length,
    question_type: q.question_type,
    question_text: q.question_text,
    choices: q.choices.map((c) => ({ id: c.id, text: c.text })),
    image_url: await imageUrl(ctx, q.image),
    image_alt: q.image?.alt_text ?? "",
  };
}

export async function sessionView(ctx: CareContext, quiz: DeliverableQuiz, s: SessionRow): Promise<SessionView> {
  const open = s.status === "started" || s.status === "in_progress";
  const q = open ? currentQuestion(quiz, s) : undefined;
  return {
    session_id: s.id,
    quiz_id: s.quiz_id,
    title: quiz.title,
    status: s.status,
    senior_id: s.senior_id,
    question_count: s.question_count,
    answered_count: s.answered_count,
    correct_count: s.correct_count,
    score: scoreOf(s.correct_count, s.question_count),
    expires_at: s.expires_at,
    question: q ? await questionView(ctx, quiz, q) : null,
  };
}

/** What a run continues with: `quiz.*` in pipeline_data. */
export function runData(s: SessionRow): Record<string, unknown> {
  return {
    quiz: {
      session_id: s.id,
      quiz_id: s.quiz_id,
      status: s.status,
      score: scoreOf(s.correct_count, s.question_count),
      correct: s.correct_count,
      answered: s.answered_count,
      total: s.question_count,
      completed_at: s.completed_at,
    },
  };
}
