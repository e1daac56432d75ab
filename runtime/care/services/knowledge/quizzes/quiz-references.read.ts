/** Which quizzes were made from a document: a document they reference cannot be hard-deleted. */
import type { Knex } from "knex";

export interface QuizRef {
  id: number;
  title: string;
  status: string;
}

/** Quizzes of the document that are not archived (an archived quiz no longer holds it). */
export async function quizzesOfDocument(db: Knex, documentId: number): Promise<QuizRef[]> {
  const rows = (await db("quizzes")
    .where({ document_id: documentId })
    .whereNot({ status: "archived" })
    .orderBy("id")
    .select("id", "title", "status")) as QuizRef[];
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
