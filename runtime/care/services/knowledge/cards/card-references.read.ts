/** Which cards were made from a document: a document they reference cannot be hard-deleted. */
import type { Knex } from "knex";

export interface CardRef {
  id: number;
  title: string;
  status: string;
}

/** Cards of the document that are not archived (an archived card no longer holds it). */
export async function cardsOfDocument(db: Knex, documentId: number): Promise<CardRef[]> {
  const rows = (await db("info_cards")
    .where({ document_id: documentId })
    .whereNot({ status: "archived" })
    .orderBy("id")
    .select("id", "title", "status")) as CardRef[];
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}
