/**
 * What cards, quizzes and suggestions read of a document, which documents/ owns: its text to
 * draft from and one of its photos to put in a slot.
 */
import type { Knex } from "knex";
import { anyImageById, documentById } from "./documents.store";

export interface DocumentText {
  id: number;
  title: string;
  source_text: string;
  status: string;
}

export interface DocumentImage {
  id: number;
  document_id: number;
  object_name: string;
  mime_type: string;
  alt_text: string;
}

export async function documentText(db: Knex, id: number): Promise<DocumentText | undefined> {
  const d = await documentById(db, id);
  return d && { id: d.id, title: d.title, source_text: d.source_text, status: d.status };
}

export async function documentImage(db: Knex, imageId: number): Promise<DocumentImage | undefined> {
  const i = await anyImageById(db, imageId);
  return i && { id: i.id, document_id: i.document_id, object_name: i.object_name, mime_type: i.mime_type, alt_text: i.alt_text };
}
