/** Quizzes: create, list, detail with ordered questions, change, lifecycle, hard delete. */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { parseInput } from "../../../../platform/core/validation";
import type { MediaContext } from "../../../../household/media/media.service";
import { variantViews, type VariantView } from "../cards/slot-manifest";
import { findLayout } from "../layouts/layouts";
import type { Layout } from "../layouts/layout-schema";
import { assertNotUsedByRules } from "../rule-references";
import { withDocumentRef } from "../shared/document-ref";
import { checkLifecycle, type LifecycleAction } from "../shared/lifecycle";
import { questionProblem, quizCreateSchema, quizPatchSchema } from "./quiz-schemas";
import { renderQuestionImages } from "./question-render";
import {
  deleteQuizRow,
  insertQuiz,
  listQuizRows,
  questionCounts,
  questionsOf,
  quizById,
  updateQuiz,
  type QuestionRow,
  type QuizFilter,
  type QuizRow,
} from "./quizzes.store";

export interface QuestionImageView {
  alt_text: string;
  source_image_id: number | null;
  original_url: string | null;
  variants: VariantView[];
}

export interface QuestionView extends Omit<QuestionRow, "image"> {
  image: QuestionImageView | null;
}

export interface QuizView extends QuizRow {
  questions: QuestionView[];
}

export function quizLayout(ctx: CareContext, layoutId: string, field = "question_layout_id"): Layout {
  const layout = findLayout(ctx.settings, layoutId);
  if (!layout) throw new ValidationError(`${field}: unknown layout '${layoutId.slice(0, 64)}' (GET /api/v1/knowledge/layouts?applies_to=quiz lists them)`);
  if (layout.applies_to !== "quiz") throw new ValidationError(`${field}: layout '${layoutId}' is for ${layout.applies_to}, not quizzes`);
  return layout;
}

export async function quizRow(ctx: CareContext, id: number): Promise<QuizRow> {
  const quiz = await quizById(ctx.db, id);
  if (!quiz) throw new NotFoundError(`Quiz ${id} not found`);
  return quiz;
}

export async function questionView(ctx: MediaContext, q: QuestionRow): Promise<QuestionView> {
  const img = q.image;
  const image = img.original_object_name
    ? {
        alt_text: img.alt_text ?? "",
        source_image_id: img.source_image_id ?? null,
        original_url: null,
        variants: await variantViews(ctx, img.variants ?? {}),
      }
    : null;
  return { ...q, image };
}

export async function getQuiz(ctx: CareContext, id: number): Promise<QuizView> {
  const quiz = await quizRow(ctx, id);
  const questions = await questionsOf(ctx.db, id);
  return { ...quiz, questions: await Promise.all(questions.map((q) => questionView(ctx, q))) };
}

export async function listQuizzes(ctx: CareContext, f: QuizFilter) {
  const { rows, total } = await listQuizRows(ctx.db, f);
  const counts = await questionCounts(
    ctx.db,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => ({ ...r, question_count: counts.get(r.id) ?? 0 })), total, limit: f.limit, offset: f.offset };
}

export async function createQuiz(ctx: CareContext, by: string, input: unknown): Promise<QuizView> {
  const q = parseInput(quizCreateSchema, input);
  quizLayout(ctx, q.question_layout_id);
  const now = isoAt(ctx.clock.now());
  const id = await withDocumentRef(q.document_id, () =>
    insertQuiz(ctx.db, {
      document_id: q.document_id ?? null,
      title: q.title,
      question_layout_id: q.question_layout_id,
      intro_voice_template: q.intro_voice_template ?? "",
      voice_instruction: q.voice_instruction ?? null,
      tags: q.tags ?? [],
      status: "draft",
      created_by: by,
      created_at: now,
      updated_at: now,
    }),
  );
  return getQuiz(ctx, id);
}

export async function patchQuiz(ctx: CareContext, id: number, input: unknown): Promise<QuizView> {
  const patch = parseInput(quizPatchSchema, input);
  const quiz = await quizRow(ctx, id);
  checkLifecycle(`Quiz ${id}`, quiz.status, "edit");
  const relayout = patch.question_layout_id !== undefined && patch.question_layout_id !== quiz.question_layout_id;
  if (relayout) quizLayout(ctx, patch.question_layout_id as string);
  await withDocumentRef(patch.document_id, () => updateQuiz(ctx.db, id, { ...patch, version: quiz.version + 1, updated_at: isoAt(ctx.clock.now()) }));
  if (relayout) await renderQuestionImages(ctx, id);
  return getQuiz(ctx, id);
}

export async function deleteQuiz(ctx: CareContext, id: number): Promise<void> {
  await quizRow(ctx, id);
  await assertNotUsedByRules(ctx, { kind: "quiz", id });
  await deleteQuizRow(ctx.db, id);
}

export async function quizLifecycle(ctx: CareContext, id: number, action: Exclude<LifecycleAction, "edit">, by: string): Promise<QuizView> {
  const quiz = await quizRow(ctx, id);
  checkLifecycle(`Quiz ${id}`, quiz.status, action);
  const now = isoAt(ctx.clock.now());
  if (action === "approve") {
    const questions = await questionsOf(ctx.db, id);
    if (questions.length === 0) throw new ValidationError(`questions: quiz ${id} has no questions; add at least one before approving`);
    const problems = questions.flatMap((q) => {
      const p = questionProblem(q);
      return p ? [`question ${q.id} (ord ${q.ord}) ${p}`] : [];
    });
    if (problems.length) throw new ValidationError(`questions: ${problems.join("; ")}`);
    await updateQuiz(ctx.db, id, { status: "approved", approved_by: by, approved_at: now, updated_at: now });
  } else if (action === "archive") {
    await updateQuiz(ctx.db, id, { status: "archived", archived_at: now, updated_at: now });
  } else {
    await updateQuiz(ctx.db, id, { status: "draft", archived_at: null, approved_at: null, approved_by: null, updated_at: now });
  }
  return getQuiz(ctx, id);
}
