/** What creating and changing a quiz and its questions accepts; suggest validates drafts against the same. */
import { z } from "zod";
import { tagsSchema, voiceInstructionSchema } from "../shared/fields";
import { storeId } from "../../../../../nodes/_kit/store-id";

export const quizFields = {
  title: z.string().trim().min(1, "cannot be blank").max(200),
  question_layout_id: z.string().min(1).max(64),
  intro_voice_template: z.string().max(2000),
  voice_instruction: voiceInstructionSchema,
  tags: tagsSchema,
  document_id: storeId().nullable(),
};

export const quizCreateSchema = z
  .object(quizFields)
  .partial()
  .required({ title: true })
  .extend({ question_layout_id: quizFields.question_layout_id.default("quiz_with_optional_image") })
  .strict();
export const quizPatchSchema = z.object(quizFields).partial().strict();

export const choiceSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, "letters, digits, _ and - (at most 40)")
      .optional(),
    text: z.string().trim().min(1, "cannot be blank").max(300),
    is_correct: z.boolean().default(false),
  })
  .strict();

const choicesSchema = z
  .array(choiceSchema)
  .max(8, "at most 8 choices")
  // A choice without an id gets its letter: a, b, c...
  .transform((cs) => cs.map((c, i) => ({ id: c.id ?? String.fromCharCode(97 + i), text: c.text, is_correct: c.is_correct })))
  .superRefine((cs, ctx) => {
    const seen = new Set<string>();
    cs.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: "custom", path: [i, "id"], message: `'${c.id}' is used twice` });
      seen.add(c.id);
    });
  });

export const questionFields = {
  question_type: z.enum(["multiple_choice", "open_ended"]),
  question_text: z.string().trim().min(1, "cannot be blank").max(1000),
  choices: choicesSchema,
  expected_answer: z.string().max(1000),
  explanation: z.string().max(2000),
};

export const questionCreateSchema = z
  .object(questionFields)
  .partial()
  .required({ question_text: true })
  .extend({ question_type: questionFields.question_type.default("multiple_choice") })
  .strict();
export type QuestionCreate = z.output<typeof questionCreateSchema>;
export const questionPatchSchema = z.object(questionFields).partial().strict();

export const reorderSchema = z
  .object({
    items: z.array(z.object({ id: storeId(), ord: z.number().int().min(0).max(10_000) }).strict()).min(1, "list every question with its new ord"),
  })
  .strict();

/** Why a question cannot be asked as it is (approve refuses the quiz), or null. */
export function questionProblem(q: { question_type: string; choices: ReadonlyArray<{ is_correct: boolean }> }): string | null {
  if (q.question_type !== "multiple_choice") return null;
  if (q.choices.length < 2) return `has ${q.choices.length} choice${q.choices.length === 1 ? "" : "s"}; a multiple-choice question needs at least 2`;
  const correct = q.choices.filter((c) => c.is_correct).length;
  return correct === 1 ? null : `has ${correct} correct choices; exactly one must be correct`;
}
