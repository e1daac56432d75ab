/**
 * What cards, quizzes and suggestions read of a document (`knowledge/document-ports.ts`): its
 * text to draft from and one of its photos to put in a slot. The app wires these as the ports.
 */
import type { Knex } from "knex";
import type { DocumentImage, DocumentText } from "../document-ports";
import { anyImageById, documentById } from "./documents.store";

export async function documentText(db: Knex, id: number): Promise<DocumentText | undefined> {
  const d = await documentById(db, id);
  return d && { id: d.id, title: d.title, source_text: d.source_text, status: d.status };
}

export async function documentImage(db: Knex, imageId: number): Promise<DocumentImage | undefined> {
  const i = await anyImageById(db, imageId);
  return i && { id: i.id, document_id: i.document_id, object_name: i.object_name, mime_type: i.mime_type, alt_text: i.alt_text };
}
