/**
 * A quiz spoken with the voice companion: when a realtime model is configured, the companion
 * asks the questions one at a time and answers them with the quiz tools (function calling),
 * for this session only; the buttons on screen keep working, and the first answer to a
 * question counts.
 */
import { deliveryInstruction } from "../voice/voice-defaults";
import { SOURCE_LANGUAGE, wordsIn, type Words } from "../../../../platform/i18n/catalogs";
import { seniorWords } from "../../../../household/persons/senior-language";
import { NO_VOICE_MODEL } from "../../../../../vocabulary/voice";
import type { CareContext } from "../../../core/context";
import { realtimeConfigured } from "../../llm/realtime-client";
import type { DeliverableQuiz } from "../deliverable";
import type { SessionRow } from "./quiz-sessions.store";

/** What the companion says first: the quiz's intro (its `{{title}}` and `{{question_count}}` filled in), else a gentle default. */
export function quizIntro(quiz: DeliverableQuiz, words: Words = wordsIn(SOURCE_LANGUAGE)): string {
  const template = quiz.intro_voice_template.trim();
  if (!template) return words("spoken.quiz_intro", { title: quiz.title, count: quiz.questions.length });
  return template.replace(/\{\{\s*title\s*\}\}/g, quiz.title).replace(/\{\{\s*question_count\s*\}\}/g, String(quiz.questions.length));
}

/** Starts the conversation; says how the companion took part, or why it did not. */
export async function startQuizConversation(
  ctx: CareContext,
  quiz: DeliverableQuiz,
  session: SessionRow,
  stepInstruction: string | null,
  signal?: AbortSignal,
): Promise<string> {
  if (!realtimeConfigured(ctx.settings)) return `${NO_VOICE_MODEL}: answered by tap`;
  if (!ctx.voice) return "the voice companion is not started: answered by tap";
  // Step override, else the quiz's own, else quiz_default; the companion adds the base.
  const words = await seniorWords(ctx);
  const instruction = deliveryInstruction(ctx.settings, "quiz", stepInstruction, quiz.voice_instruction, words);
  const talking = await ctx.voice.start({ reason: "notification", text: quizIntro(quiz, words), instruction, quiz: { session_id: session.id } }, signal);
  return talking.ok ? `the voice companion asks it (${talking.value.session_id})` : `not spoken (${talking.reason}): answered by tap`;
}
