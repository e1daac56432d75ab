/**
 * `knowledge_documents` and `knowledge_document_images`, owned here. Tags are a JSON list in
 * a text column; the tag filter matches the quoted tag inside it (tags are trimmed words
 * without quotes, so `"heater"` cannot match part of another tag).
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";

export type DocumentStatus = "uploaded" | "chunked" | "approved" | "archived";

export interface DocumentRow {
  id: number;
  title: string;
  source_text: string;
  tags: string[];
  status: DocumentStatus;
  created_by: string;
  created_at: string;
  updated_at: string;
  approved_at: string | null;
  approved_by: string | null;
  archived_at: string | null;
  embedding_model: string | null;
}

export interface ImageRow {
  id: number;
  document_id: number;
  object_name: string;
  mime_type: string;
  width: number | null;
  height: number | null;
  alt_text: string;
  ord: number;
  created_at: string;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const docFromDb = (r: Record<string, unknown>): DocumentRow => ({
  ...(r as unknown as DocumentRow),
  id: Number(r.id),
  tags: fromJsonText<string[]>(r.tags as string, []),
  approved_at: (r.approved_at as string | null) ?? null,
  approved_by: (r.approved_by as string | null) ?? null,
  archived_at: (r.archived_at as string | null) ?? null,
  embedding_model: (r.embedding_model as string | null) ?? null,
});

const imageFromDb = (r: Record<string, unknown>): ImageRow => ({
  ...(r as unknown as ImageRow),
  id: Number(r.id),
  document_id: Number(r.document_id),
  width: num(r.width),
  height: num(r.height),
  ord: Number(r.ord),
});

const insertedId = (inserted: unknown): number =>
  typeof inserted === "object" && inserted !== null ? Number((inserted as { id: number }).id) : Number(inserted);

export type NewDocument = Omit<DocumentRow, "id" | "approved_at" | "approved_by" | "archived_at" | "embedding_model">;

export async function insertDocument(db: Knex, doc: NewDocument): Promise<number> {
  const [inserted] = await db("knowledge_documents")
    .insert({ ...doc, tags: toJsonText(doc.tags) })
    .returning("id");
  return insertedId(inserted);
}

export async function documentById(db: Knex, id: number): Promise<DocumentRow | undefined> {
  const row = await db("knowledge_documents").where({ id }).first();
  return row ? docFromDb(row) : undefined;
}

export type DocumentChanges = Partial<Omit<DocumentRow, "id" | "created_by" | "created_at">>;

export async function updateDocument(db: Knex, id: number, changes: DocumentChanges): Promise<void> {
  const { tags, ...rest } = changes;
  await db("knowledge_documents")
    .where({ id })
    .update({ ...rest, ...(tags ? { tags: toJsonText(tags) } : {}) });
}

export async function deleteDocumentRow(db: Knex, id: number): Promise<void> {
  await db("knowledge_documents").where({ id }).delete();
}

export interface DocumentFilter {
  status?: DocumentStatus;
  tag?: string;
  q?: string;
  limit: number;
  offset: number;
}

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listDocumentRows(db: Knex, f: DocumentFilter): Promise<{ items: DocumentRow[]; total: number }> {
  const base = db("knowledge_documents");
  if (f.status) base.where("status", f.status);
  if (f.tag) base.whereRaw("lower(tags) like ? escape '\\'", [`%${escapeLike(JSON.stringify(f.tag.toLowerCase()))}%`]);
  if (f.q) {
    const like = `%${escapeLike(f.q.toLowerCase())}%`;
    base.where((w) => w.whereRaw("lower(title) like ? escape '\\'", [like]).orWhereRaw("lower(source_text) like ? escape '\\'", [like]));
  }
  const total = (await base.clone().count({ n: "*" }).first()) as { n: number | string } | undefined;
  const rows = await base
    .orderBy([
      { column: "updated_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(f.limit)
    .offset(f.offset)
    .select("*");
  return { items: rows.map(docFromDb), total: Number(total?.n ?? 0) };
}

export async function titlesByIds(db: Knex, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows: Array<{ id: number; title: string }> = await db("knowledge_documents")
    .whereIn("id", [...ids])
    .select("id", "title");
  return new Map(rows.map((r) => [Number(r.id), r.title]));
}

export async function insertImage(db: Knex, row: Omit<ImageRow, "id">): Promise<number> {
  const [inserted] = await db("knowledge_document_images").insert(row).returning("id");
  return insertedId(inserted);
}

export async function imagesOf(db: Knex, documentId: number): Promise<ImageRow[]> {
  const rows = await db("knowledge_document_images")
    .where({ document_id: documentId })
    .orderBy([{ column: "ord" }, { column: "id" }]);
  return rows.map(imageFromDb);
}

export async function imageById(db: Knex, documentId: number, imageId: number): Promise<ImageRow | undefined> {
  const row = await db("knowledge_document_images").where({ id: imageId, document_id: documentId }).first();
  return row ? imageFromDb(row) : undefined;
}

/** A photo by its own id, whichever document holds it (a card slot names it so). */
export async function anyImageById(db: Knex, imageId: number): Promise<ImageRow | undefined> {
  const row = await db("knowledge_document_images").where({ id: imageId }).first();
  return row ? imageFromDb(row) : undefined;
}

export async function updateImage(db: Knex, imageId: number, changes: Partial<Pick<ImageRow, "alt_text" | "ord">>): Promise<void> {
  await db("knowledge_document_images").where({ id: imageId }).update(changes);
}

export async function deleteImageRow(db: Knex, imageId: number): Promise<void> {
  await db("knowledge_document_images").where({ id: imageId }).delete();
}

export async function nextImageOrd(db: Knex, documentId: number): Promise<number> {
  const row = (await db("knowledge_document_images").where({ document_id: documentId }).max({ m: "ord" }).first()) as { m: number | null } | undefined;
  return row?.m === null || row?.m === undefined ? 0 : Number(row.m) + 1;
}

/** Which of these object names a document image still names (the media sweep keeps those). */
export async function imageObjectsAmong(db: Knex, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows: Array<{ object_name: string }> = await db("knowledge_document_images")
    .distinct("object_name")
    .whereIn("object_name", [...names]);
  return new Set(rows.map((r) => r.object_name));
}
