/** A quiz's questions: add, change, delete, reorder (all or nothing), and each one's picture. */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { parseInput } from "../../../../platform/core/validation";
import { newPicture } from "../images/picture-source";
import { renderSlotVariants } from "../images/render-variants";
import type { PictureSource } from "../images/upload-form";
import { checkLifecycle } from "../shared/lifecycle";
import { questionCreateSchema, questionPatchSchema, questionProblem, reorderSchema } from "./quiz-schemas";
import { getQuiz, questionView, quizLayout, quizRow, type QuestionView, type QuizView } from "./quizzes.service";
import { deleteQuestionRow, insertQuestion, nextOrd, questionById, questionsOf, setOrds, updateQuestion, updateQuiz, type QuestionRow } from "./quizzes.store";

async function editableQuiz(ctx: CareContext, quizId: number) {
  const quiz = await quizRow(ctx, quizId);
  checkLifecycle(`Quiz ${quizId}`, quiz.status, "edit");
  return quiz;
}

export async function questionRow(ctx: CareContext, quizId: number, id: number): Promise<QuestionRow> {
  const q = await questionById(ctx.db, quizId, id);
  if (!q) throw new NotFoundError(`Question ${id} of quiz ${quizId} not found`);
  return q;
}

const touch = (ctx: CareContext, quizId: number) => updateQuiz(ctx.db, quizId, { updated_at: isoAt(ctx.clock.now()) });

export async function addQuestion(ctx: CareContext, quizId: number, input: unknown): Promise<QuestionView> {
  const q = parseInput(questionCreateSchema, input);
  const quiz = await editableQuiz(ctx, quizId);
  const problem = quiz.status === "approved" ? questionProblem({ question_type: q.question_type, choices: q.choices ?? [] }) : null;
  if (problem) throw new ConflictError(`Quiz ${quizId} is approved: the new question ${problem}`);
  const id = await insertQuestion(ctx.db, {
    quiz_id: quizId,
    ord: await nextOrd(ctx.db, quizId),
    question_type: q.question_type,
    question_text: q.question_text,
    choices: q.choices ?? [],
    expected_answer: q.expected_answer ?? "",
    explanation: q.explanation ?? "",
    image: {},
  });
  await touch(ctx, quizId);
  return questionView(ctx, await questionRow(ctx, quizId, id));
}

export async function patchQuestion(ctx: CareContext, quizId: number, id: number, input: unknown): Promise<QuestionView> {
  const patch = parseInput(questionPatchSchema, input);
  const quiz = await editableQuiz(ctx, quizId);
  const current = await questionRow(ctx, quizId, id);
  const problem = quiz.status === "approved" ? questionProblem({ ...current, ...patch }) : null;
  // An approved quiz stays askable: a change that breaks a question is refused.
  if (problem) throw new ConflictError(`Quiz ${quizId} is approved: question ${id} ${problem}`);
  await updateQuestion(ctx.db, id, patch);
  await touch(ctx, quizId);
  return questionView(ctx, await questionRow(ctx, quizId, id));
}

export async function deleteQuestion(ctx: CareContext, quizId: number, id: number): Promise<void> {
  const quiz = await editableQuiz(ctx, quizId);
  await questionRow(ctx, quizId, id);
  if (quiz.status === "approved" && (await questionsOf(ctx.db, quizId)).length === 1)
    throw new ConflictError(`Quiz ${quizId} is approved and question ${id} is its only question; add another first, or archive the quiz`);
  await deleteQuestionRow(ctx.db, id);
  await touch(ctx, quizId);
}

/** Every question of the quiz, each once, with distinct ords; checked whole before anything is written. */
export async function reorderQuestions(ctx: CareContext, quizId: number, input: unknown): Promise<QuizView> {
  const { items } = parseInput(reorderSchema, input);
  await editableQuiz(ctx, quizId);
  const questions = await questionsOf(ctx.db, quizId);
  const known = new Set(questions.map((q) => q.id));
  const seenIds = new Set<number>();
  const seenOrds = new Map<number, number>();
  items.forEach((item, i) => {
    if (!known.has(item.id)) throw new ValidationError(`items.${i}.id: question ${item.id} is not a question of quiz ${quizId}`);
    if (seenIds.has(item.id)) throw new ValidationError(`items.${i}.id: question ${item.id} is listed twice`);
    const other = seenOrds.get(item.ord);
    if (other !== undefined) throw new ValidationError(`items.${i}.ord: ${item.ord} is also given to question ${other}`);
    seenIds.add(item.id);
    seenOrds.set(item.ord, item.id);
  });
  const missing = questions.filter((q) => !seenIds.has(q.id)).map((q) => q.id);
  if (missing.length)
    throw new ValidationError(`items: question${missing.length > 1 ? "s" : ""} ${missing.join(", ")} missing (list every question of the quiz)`);
  await setOrds(ctx.db, items);
  await touch(ctx, quizId);
  return getQuiz(ctx, quizId);
}

export async function setQuestionImage(ctx: CareContext, quizId: number, id: number, src: PictureSource): Promise<QuestionView> {
  const quiz = await editableQuiz(ctx, quizId);
  const q = await questionRow(ctx, quizId, id);
  const spec = quizLayout(ctx, quiz.question_layout_id).image_slots[0];
  if (!spec) throw new ValidationError(`question_layout_id: layout '${quiz.question_layout_id}' has no image slot`);
  const picture = await newPicture(ctx, src);
  const variants = await renderSlotVariants(ctx, picture.bytes, spec, q.image.crop_hints ?? {});
  await updateQuestion(ctx.db, id, {
    image: {
      original_object_name: picture.object_name,
      source_image_id: picture.source_image_id,
      alt_text: picture.alt_text ?? q.image.alt_text ?? "",
      crop_hints: q.image.crop_hints ?? {},
      variants,
      rendered_at: isoAt(ctx.clock.now()),
    },
  });
  await touch(ctx, quizId);
  return questionView(ctx, await questionRow(ctx, quizId, id));
}

export async function clearQuestionImage(ctx: CareContext, quizId: number, id: number): Promise<QuestionView> {
  await editableQuiz(ctx, quizId);
  await questionRow(ctx, quizId, id);
  await updateQuestion(ctx.db, id, { image: {} });
  await touch(ctx, quizId);
  return questionView(ctx, await questionRow(ctx, quizId, id));
}
