/** A quiz as the delivery side reads it (deliverable.ts): its row and its questions in order. */
import type { Knex } from "knex";
import { fromJsonText } from "../../../../platform/db/json-column";
import type { DeliverableQuestion, DeliverableQuiz, DeliverableSlot, QuizChoice } from "../deliverable";

interface QuizRow {
  id: number;
  title: string;
  question_layout_id: string;
  intro_voice_template: string;
  voice_instruction: string | null;
  status: string;
  tags: string;
}

interface QuestionRow {
  id: number;
  ord: number;
  question_type: DeliverableQuestion["question_type"];
  question_text: string;
  choices: string;
  expected_answer: string;
  explanation: string;
  image: string;
}

interface StoredImage {
  original_object_name?: string | null;
  alt_text?: string;
  variants?: Record<string, Omit<DeliverableSlot["variants"][number], "surface">>;
}

function imageOf(text: string): DeliverableSlot | null {
  const img = fromJsonText<StoredImage>(text, {});
  if (!img.original_object_name) return null;
  const variants = Object.entries(img.variants ?? {}).map(([surface, v]) => ({ ...v, surface: surface as "pwa" | "eink" }));
  return { slot_index: 0, alt_text: img.alt_text ?? "", variants };
}

export async function quizForDelivery(db: Knex, id: number): Promise<DeliverableQuiz | undefined> {
  const quiz = (await db("quizzes").where({ id }).first()) as QuizRow | undefined;
  if (!quiz) return undefined;
  const rows = (await db("quiz_questions")
    .where({ quiz_id: id })
    .orderBy([{ column: "ord" }, { column: "id" }])) as QuestionRow[];
  return {
    id: Number(quiz.id),
    title: quiz.title,
    question_layout_id: quiz.question_layout_id,
    intro_voice_template: quiz.intro_voice_template,
    voice_instruction: quiz.voice_instruction,
    status: quiz.status,
    tags: fromJsonText<string[]>(quiz.tags, []),
    questions: rows.map((q) => ({
      id: Number(q.id),
      ord: Number(q.ord),
      question_type: q.question_type,
      question_text: q.question_text,
      choices: fromJsonText<QuizChoice[]>(q.choices, []),
      expected_answer: q.expected_answer,
      explanation: q.explanation,
      image: imageOf(q.image),
    })),
  };
}
