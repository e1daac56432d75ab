/**
 * What a model's draft must be: the fields of the resource it becomes (card-schemas,
 * quiz-schemas), extra keys dropped, and a quiz's multiple-choice questions with exactly one
 * right answer (what approve will ask for later).
 */
import { z } from "zod";
import { cardFields } from "../cards/card-schemas";
import { questionFields, questionProblem, quizFields } from "../quizzes/quiz-schemas";

export const cardDraftSchema = z.object({
  title: cardFields.title,
  body_text: cardFields.body_text,
  voice_instruction: cardFields.voice_instruction.optional(),
});

export const questionDraftSchema = z
  .object({
    question_type: questionFields.question_type.default("multiple_choice"),
    question_text: questionFields.question_text,
    choices: questionFields.choices.default([]),
    expected_answer: questionFields.expected_answer.default(""),
    explanation: questionFields.explanation.default(""),
  })
  .superRefine((q, ctx) => {
    const problem = questionProblem(q);
    if (problem) ctx.addIssue({ code: "custom", path: ["choices"], message: `the question ${problem}` });
  });
export type QuestionDraft = z.output<typeof questionDraftSchema>;

export const quizDraftSchema = (maxQuestions: number) =>
  z.object({
    title: quizFields.title,
    intro_voice_template: quizFields.intro_voice_template.default(""),
    questions: z.array(questionDraftSchema).min(1).max(maxQuestions, `at most ${maxQuestions} questions`),
  });

export const voiceInstructionDraftSchema = z.object({ voice_instruction: z.string().trim().min(1).max(1000) });
