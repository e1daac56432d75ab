/** Queries on quizzes and quiz_questions (this folder owns them). */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";
import type { QuizChoice } from "../deliverable";
import type { CropHints, VariantMap } from "../images/render-variants";

export interface QuizRow {
  id: number;
  document_id: number | null;
  title: string;
  question_layout_id: string;
  intro_voice_template: string;
  voice_instruction: string | null;
  tags: string[];
  status: string;
  version: number;
  approved_by: string | null;
  approved_at: string | null;
  archived_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface QuestionImage {
  original_object_name?: string | null;
  source_image_id?: number | null;
  alt_text?: string;
  crop_hints?: CropHints;
  variants?: VariantMap;
  rendered_at?: string | null;
}

export interface QuestionRow {
  id: number;
  quiz_id: number;
  ord: number;
  question_type: "multiple_choice" | "open_ended";
  question_text: string;
  choices: QuizChoice[];
  expected_answer: string;
  explanation: string;
  image: QuestionImage;
}

type Raw = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const quiz = (r: Raw): QuizRow =>
  ({ ...r, id: Number(r.id), document_id: num(r.document_id), version: Number(r.version), tags: fromJsonText<string[]>(r.tags as string, []) }) as QuizRow;

const question = (r: Raw): QuestionRow =>
  ({
    ...r,
    id: Number(r.id),
    quiz_id: Number(r.quiz_id),
    ord: Number(r.ord),
    choices: fromJsonText<QuizChoice[]>(r.choices as string, []),
    image: fromJsonText<QuestionImage>(r.image as string, {}),
  }) as QuestionRow;

const insertedId = (row: { id: number } | number): number => Number(typeof row === "object" ? row.id : row);

export type NewQuiz = Omit<QuizRow, "id" | "version" | "approved_by" | "approved_at" | "archived_at">;

export async function insertQuiz(db: Knex, q: NewQuiz): Promise<number> {
  const [row] = (await db("quizzes")
    .insert({ ...q, tags: toJsonText(q.tags) })
    .returning("id")) as Array<{ id: number } | number>;
  return insertedId(row);
}

export async function quizById(db: Knex, id: number): Promise<QuizRow | undefined> {
  const r = (await db("quizzes").where({ id }).first()) as Raw | undefined;
  return r ? quiz(r) : undefined;
}

const quotedTag = (tag: string): string => `%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export interface QuizFilter {
  status?: string;
  tag?: string;
  limit: number;
  offset: number;
}

export async function listQuizRows(db: Knex, f: QuizFilter): Promise<{ rows: QuizRow[]; total: number }> {
  const q = db("quizzes");
  if (f.status) q.where({ status: f.status });
  if (f.tag) q.whereRaw("tags like ? escape '\\'", [quotedTag(f.tag)]);
  const [{ n }] = (await q.clone().count({ n: "*" })) as Array<{ n: number | string }>;
  const rows = (await q.orderBy("id", "desc").limit(f.limit).offset(f.offset)) as Raw[];
  return { rows: rows.map(quiz), total: Number(n) };
}

export async function questionCounts(db: Knex, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = (await db("quiz_questions")
    .whereIn("quiz_id", [...ids])
    .groupBy("quiz_id")
    .select("quiz_id")
    .count({ n: "*" })) as Raw[];
  return new Map(rows.map((r) => [Number(r.quiz_id), Number(r.n)]));
}

export async function updateQuiz(db: Knex, id: number, patch: Partial<Omit<QuizRow, "id">>): Promise<void> {
  const row: Raw = { ...patch };
  if (patch.tags) row.tags = toJsonText(patch.tags);
  await db("quizzes").where({ id }).update(row);
}

export async function deleteQuizRow(db: Knex, id: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("quiz_questions").where({ quiz_id: id }).delete();
    await trx("quizzes").where({ id }).delete();
  });
}

export async function questionsOf(db: Knex, quizId: number): Promise<QuestionRow[]> {
  const rows = (await db("quiz_questions")
    .where({ quiz_id: quizId })
    .orderBy([{ column: "ord" }, { column: "id" }])) as Raw[];
  return rows.map(question);
}

export async function questionById(db: Knex, quizId: number, id: number): Promise<QuestionRow | undefined> {
  const r = (await db("quiz_questions").where({ quiz_id: quizId, id }).first()) as Raw | undefined;
  return r ? question(r) : undefined;
}

export type NewQuestion = Omit<QuestionRow, "id">;

export async function insertQuestion(db: Knex, q: NewQuestion): Promise<number> {
  const [row] = (await db("quiz_questions")
    .insert({ ...q, choices: toJsonText(q.choices), image: toJsonText(q.image) })
    .returning("id")) as Array<{ id: number } | number>;
  return insertedId(row);
}

export async function nextOrd(db: Knex, quizId: number): Promise<number> {
  const row = (await db("quiz_questions").where({ quiz_id: quizId }).max({ m: "ord" }).first()) as { m?: number | string | null } | undefined;
  return row?.m === null || row?.m === undefined ? 1 : Number(row.m) + 1;
}

export async function updateQuestion(db: Knex, id: number, patch: Partial<Omit<QuestionRow, "id" | "quiz_id">>): Promise<void> {
  const row: Raw = { ...patch };
  if (patch.choices) row.choices = toJsonText(patch.choices);
  if (patch.image) row.image = toJsonText(patch.image);
  await db("quiz_questions").where({ id }).update(row);
}

export async function deleteQuestionRow(db: Knex, id: number): Promise<void> {
  await db("quiz_questions").where({ id }).delete();
}

/** Sets every question's ord in one transaction: all or nothing. */
export async function setOrds(db: Knex, ords: ReadonlyArray<{ id: number; ord: number }>): Promise<void> {
  await db.transaction(async (trx) => {
    for (const { id, ord } of ords) await trx("quiz_questions").where({ id }).update({ ord });
  });
}

/** Object names the questions' pictures still hold (the media sweep keeps them). */
export async function questionObjectsAmong(db: Knex, names: readonly string[]): Promise<Set<string>> {
  const wanted = new Set(names);
  const held = new Set<string>();
  if (wanted.size === 0) return held;
  const rows = (await db("quiz_questions").whereNot({ image: "{}" }).select("image")) as Raw[];
  for (const r of rows) {
    const img = fromJsonText<QuestionImage>(r.image as string, {});
    for (const name of [img.original_object_name, ...Object.values(img.variants ?? {}).map((v) => v?.object_name)])
      if (name && wanted.has(name)) held.add(name);
  }
  return held;
}
