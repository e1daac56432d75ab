/**
 * Drafts from the authoring model (docs/knowledge-cards.md, "Suggestions"): a card from a
 * document, a quiz from a document, a quiz's voice instruction, one question again. Each is
 * validated against the resource's schema and returned, never saved: the caregiver corrects
 * it and POSTs it like any card or quiz.
 */
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import { NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { parseInput } from "../../../../platform/core/validation";
import { cardLayout } from "../cards/cards.service";
import { documentText as readDocument, type DocumentText } from "../documents/document-reads";
import { getQuiz } from "../quizzes/quizzes.service";
import { authoringModel, draftWithModel } from "./authoring-model";
import { cardDraftSchema, questionDraftSchema, quizDraftSchema, voiceInstructionDraftSchema } from "./draft-schemas";
import { storeId } from "../../../../../nodes/_kit/store-id";

/** How much of a document goes into a prompt: enough for a card or a quiz, bounded for small models. */
export const MATERIAL_CHARS = 12_000;

const material = (doc: DocumentText): string =>
  `Title: ${doc.title}\n\n${doc.source_text.length > MATERIAL_CHARS ? `${doc.source_text.slice(0, MATERIAL_CHARS)}\n[…]` : doc.source_text}`;

async function documentText(ctx: CareContext, id: number): Promise<DocumentText> {
  const doc = await readDocument(ctx.db, id);
  if (!doc) throw new ValidationError(`document_id: document ${id} not found`);
  if (doc.status === "archived") throw new ValidationError(`document_id: document ${id} is archived`);
  return doc;
}

const cardSuggestInput = z.object({ document_id: storeId(), layout_id: z.string().min(1).max(64).optional() }).strict();

export async function suggestCard(ctx: CareContext, input: unknown) {
  const { document_id, layout_id } = parseInput(cardSuggestInput, input);
  authoringModel(ctx.settings); // 409 before anything else when there is no model
  const layout = cardLayout(ctx, layout_id ?? "text_only");
  const doc = await documentText(ctx, document_id);
  const { value, model_id, repaired } = await draftWithModel(ctx.settings, {
    task:
      "Write one information card from this material: a short title (at most 8 words) and a body of 2 to 4 short sentences the senior can read at a glance. " +
      "Optionally a voice_instruction telling the voice companion how to read it aloud (or null).",
    material: material(doc),
    schema: cardDraftSchema,
  });
  return {
    draft: { layout_id: layout.id, title: value.title, body_text: value.body_text, voice_instruction: value.voice_instruction ?? null, tags: [], document_id },
    model_id,
    repaired,
  };
}

const quizSuggestInput = z.object({ document_id: storeId(), question_count: z.number().int().min(1).max(10).default(5) }).strict();

export async function suggestQuiz(ctx: CareContext, input: unknown) {
  const { document_id, question_count } = parseInput(quizSuggestInput, input);
  authoringModel(ctx.settings);
  const doc = await documentText(ctx, document_id);
  const { value, model_id, repaired } = await draftWithModel(ctx.settings, {
    task:
      `Write a gentle quiz of ${question_count} questions from this material. Each question is multiple_choice with 3 choices (ids a, b, c), exactly one with is_correct true, ` +
      "and a one-sentence explanation said after the answer. Also a short title and an intro_voice_template the companion says before the first question.",
    material: material(doc),
    schema: quizDraftSchema(question_count),
  });
  return {
    draft: { ...value, question_layout_id: "quiz_with_optional_image", voice_instruction: null, tags: [], document_id },
    model_id,
    repaired,
  };
}

const voiceInput = z
  .object({
    quiz_id: storeId().optional(),
    title: z.string().trim().min(1).max(200).optional(),
    questions: z
      .array(z.object({ question_text: z.string().trim().min(1).max(1000) }).loose())
      .max(50)
      .optional(),
  })
  .strict()
  .refine((v) => v.quiz_id !== undefined || v.title !== undefined, { message: "send quiz_id, or title (and questions)", path: ["quiz_id"] });

export async function suggestVoiceInstruction(ctx: CareContext, input: unknown) {
  const v = parseInput(voiceInput, input);
  authoringModel(ctx.settings);
  const quiz = v.quiz_id !== undefined ? await getQuiz(ctx, v.quiz_id).catch(() => undefined) : undefined;
  if (v.quiz_id !== undefined && !quiz) throw new ValidationError(`quiz_id: quiz ${v.quiz_id} not found`);
  const title = quiz?.title ?? v.title ?? "";
  const questions = quiz ? quiz.questions.map((q) => q.question_text) : (v.questions ?? []).map((q) => q.question_text);
  const { value, model_id, repaired } = await draftWithModel(ctx.settings, {
    task: "Write the voice_instruction for the voice companion that will ask this quiz aloud: 2 or 3 sentences on tone and pace (warm, patient, praising every try, never hurrying). Do not repeat the questions.",
    material: `Quiz: ${title}\nQuestions:\n${questions.map((q, i) => `${i + 1}. ${q}`).join("\n")}`,
    schema: voiceInstructionDraftSchema,
  });
  return { draft: value, model_id, repaired };
}

export async function regenerateQuestion(ctx: CareContext, quizId: number, questionId: number) {
  authoringModel(ctx.settings);
  const quiz = await getQuiz(ctx, quizId);
  const question = quiz.questions.find((q) => q.id === questionId);
  if (!question) throw new NotFoundError(`Question ${questionId} of quiz ${quizId} not found`);
  const doc = quiz.document_id !== null ? await readDocument(ctx.db, quiz.document_id) : undefined;
  const others = quiz.questions.filter((q) => q.id !== questionId).map((q) => `- ${q.question_text}`);
  const { value, model_id, repaired } = await draftWithModel(ctx.settings, {
    task:
      `Write one new ${question.question_type} question to replace this one: "${question.question_text}". Ask about something else than the other questions. ` +
      (question.question_type === "multiple_choice"
        ? "Give 3 choices (ids a, b, c), exactly one with is_correct true, and a one-sentence explanation."
        : "Give the expected_answer and a one-sentence explanation."),
    material: `${doc ? material(doc) : `Quiz: ${quiz.title}`}\n\nOther questions of the quiz:\n${others.join("\n") || "(none)"}`,
    schema: questionDraftSchema,
  });
  return { draft: { ...value, id: question.id, ord: question.ord }, model_id, repaired };
}
