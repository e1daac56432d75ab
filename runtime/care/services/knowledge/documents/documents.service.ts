/**
 * Knowledge documents: what the family teaches. Creating or changing the text chunks it at
 * once (retrieval/chunker.ts), so it can be searched by its words the moment it is approved;
 * vectors follow in the background. Photos go through the media store (content-addressed,
 * served by signed URLs) after the checks of image-check.ts; a photo's description is searched
 * as a passage of its own ("Photo: …") after the text's. A hard delete is refused while
 * a card or quiz made from the document is not archived.
 */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { registerMediaKeeper, signedUrl, storeObject } from "../../../../household/media/media.service";
import { cardsOfDocument } from "../cards/card-references.read";
import { quizzesOfDocument } from "../quizzes/quiz-references.read";
import {
  chunkCounts,
  chunksOf,
  chunkText,
  clearEmbeddings,
  tokensOf,
  embeddingState,
  kickEmbedder,
  replaceChunks,
  setSearchable,
  type EmbeddingState,
} from "../retrieval";
import { afterChunking, checkTransition } from "./document-status";
import { documentFields, imageDescriptions, imageFields } from "./document-input";
import { checkKnowledgeImage, KNOWLEDGE_IMAGE_EXT, type CheckedImage } from "./image-check";
import {
  deleteDocumentRow,
  deleteImageRow,
  documentById,
  imageById,
  imageObjectsAmong,
  imagesOf,
  insertDocument,
  insertImage,
  listDocumentRows,
  nextImageOrd,
  updateDocument,
  updateImage,
  type DocumentFilter,
  type DocumentRow,
  type DocumentStatus,
  type ImageRow,
} from "./documents.store";

// Photos of documents are kept by their rows, not by the frames' retention.
registerMediaKeeper(imageObjectsAmong);

export interface Upload {
  /** The form field it came in, for error messages (`images[0]`). */
  field: string;
  bytes: Buffer;
}

export interface ImageView extends Omit<ImageRow, "document_id"> {
  /** A signed URL of the media store (expires after `media.signed_url_ttl_seconds`). */
  url: string;
}

export interface DocumentSummary extends Omit<DocumentRow, "source_text"> {
  chunk_count: number;
}

export interface DocumentView extends DocumentRow {
  chunk_count: number;
  images: ImageView[];
  /** How the vectors stand: the model, and whether it is embedding or failing (and why). */
  embedding: EmbeddingState;
}

async function found(ctx: CareContext, id: number): Promise<DocumentRow> {
  const doc = await documentById(ctx.db, id);
  if (!doc) throw new NotFoundError(`Document ${id} not found`);
  return doc;
}

const now = (ctx: CareContext): string => isoAt(ctx.clock.now());

async function imageView(ctx: CareContext, img: ImageRow): Promise<ImageView> {
  const { document_id: _omit, ...rest } = img;
  return { ...rest, url: await signedUrl(ctx, img.object_name) };
}

export async function getDocument(ctx: CareContext, id: number): Promise<DocumentView> {
  const doc = await found(ctx, id);
  const counts = await chunkCounts(ctx.db, [id]);
  const images = await Promise.all((await imagesOf(ctx.db, id)).map((i) => imageView(ctx, i)));
  return { ...doc, chunk_count: counts.get(id) ?? 0, images, embedding: embeddingState(ctx) };
}

export async function listDocuments(ctx: CareContext, f: DocumentFilter): Promise<{ items: DocumentSummary[]; total: number; limit: number; offset: number }> {
  const { items, total } = await listDocumentRows(ctx.db, f);
  const counts = await chunkCounts(
    ctx.db,
    items.map((d) => d.id),
  );
  return { items: items.map(({ source_text: _text, ...d }) => ({ ...d, chunk_count: counts.get(d.id) ?? 0 })), total, limit: f.limit, offset: f.offset };
}

/** Chunks the text again, and each described photo as a passage after it; returns the status the document has after it. */
async function rechunk(ctx: CareContext, id: number, text: string, approved: boolean): Promise<DocumentStatus> {
  const chunks = chunkText(text, { size_tokens: ctx.settings.knowledge.chunk_size_tokens, overlap_tokens: ctx.settings.knowledge.chunk_overlap_tokens });
  // A photo's passage is not part of the text: it marks the text's end as where it stands.
  for (const img of await imagesOf(ctx.db, id))
    if (img.alt_text.trim()) {
      const words = `Photo: ${img.alt_text.trim()}`;
      chunks.push({ text: words, char_start: text.length, char_end: text.length, token_count: tokensOf(words.length) });
    }
  await replaceChunks(ctx.db, id, chunks, approved && chunks.length > 0);
  kickEmbedder(ctx);
  return approved && chunks.length > 0 ? "approved" : afterChunking(chunks.length);
}

/**
 * A photo's description changed: the passages follow at once. The family approved the document,
 * not each caption, but a caption is theirs too: an approved document stays approved (and its
 * photos' passages are searched), an archived one stays archived.
 */
async function reindexPhotos(ctx: CareContext, doc: DocumentRow): Promise<void> {
  const status = await rechunk(ctx, doc.id, doc.source_text, doc.status === "approved");
  if (doc.status !== "archived" && doc.status !== status) await updateDocument(ctx.db, doc.id, { status });
}

async function checkUploads(ctx: CareContext, uploads: readonly Upload[]): Promise<CheckedImage[]> {
  const limits = ctx.settings.knowledge;
  const checked: CheckedImage[] = [];
  for (const u of uploads) checked.push(await checkKnowledgeImage(u.bytes, u.field, limits));
  return checked;
}

async function attach(
  ctx: CareContext,
  documentId: number,
  upload: Upload,
  image: CheckedImage,
  fields: { alt_text?: string; ord?: number },
): Promise<ImageRow> {
  const object_name = await storeObject(ctx, upload.bytes, KNOWLEDGE_IMAGE_EXT[image.mime]);
  const row = {
    document_id: documentId,
    object_name,
    mime_type: image.mime,
    width: image.width,
    height: image.height,
    alt_text: fields.alt_text ?? "",
    ord: fields.ord ?? (await nextImageOrd(ctx.db, documentId)),
    created_at: now(ctx),
  };
  return { id: await insertImage(ctx.db, row), ...row };
}

export async function createDocument(ctx: CareContext, by: string, raw: Record<string, unknown>, uploads: readonly Upload[]): Promise<DocumentView> {
  const { image_descriptions, ...rest } = raw;
  const descriptions = imageDescriptions(image_descriptions, uploads.length);
  const fields = documentFields(rest, true);
  // Every photo is checked before anything is written: a refused upload leaves nothing behind.
  const images = await checkUploads(ctx, uploads);
  const at = now(ctx);
  const id = await insertDocument(ctx.db, {
    title: fields.title!,
    source_text: fields.source_text ?? "",
    tags: fields.tags ?? [],
    status: "uploaded",
    created_by: by,
    created_at: at,
    updated_at: at,
  });
  for (let i = 0; i < uploads.length; i++) await attach(ctx, id, uploads[i], images[i], { alt_text: descriptions[i] });
  const status = await rechunk(ctx, id, fields.source_text ?? "", false);
  if (status !== "uploaded") await updateDocument(ctx.db, id, { status });
  return getDocument(ctx, id);
}

export async function patchDocument(ctx: CareContext, id: number, raw: Record<string, unknown>): Promise<DocumentView> {
  const doc = await found(ctx, id);
  const fields = documentFields(raw, false);
  checkTransition(doc, "edit");
  const changes: Partial<DocumentRow> = { updated_at: now(ctx) };
  if (fields.title !== undefined) changes.title = fields.title;
  if (fields.tags !== undefined) changes.tags = fields.tags;
  if (fields.source_text !== undefined && fields.source_text !== doc.source_text) {
    changes.source_text = fields.source_text;
    // A changed text is not the text the family approved: it goes back to review (decisions.md).
    changes.status = await rechunk(ctx, id, fields.source_text, false);
    changes.approved_at = null;
    changes.approved_by = null;
    changes.embedding_model = null;
  }
  await updateDocument(ctx.db, id, changes);
  return getDocument(ctx, id);
}

const list = (names: string[]): string => (names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`);

export async function deleteDocument(ctx: CareContext, id: number): Promise<void> {
  await found(ctx, id);
  const cards = await cardsOfDocument(ctx.db, id);
  const quizzes = await quizzesOfDocument(ctx.db, id);
  if (cards.length || quizzes.length) {
    const names = [...cards.map((c) => `info card ${c.id} '${c.title}'`), ...quizzes.map((q) => `quiz ${q.id} '${q.title}'`)];
    throw new ConflictError(`Document ${id} is used by ${list(names)}; archive it instead`);
  }
  // Chunks and image rows go with it (foreign keys cascade); the photos' files are swept once no row names them.
  await deleteDocumentRow(ctx.db, id);
}

export async function approveDocument(ctx: CareContext, id: number, by: string): Promise<DocumentView> {
  const doc = await found(ctx, id);
  checkTransition(doc, "approve");
  await setSearchable(ctx.db, id, true);
  await updateDocument(ctx.db, id, { status: "approved", approved_at: now(ctx), approved_by: by, updated_at: now(ctx) });
  return getDocument(ctx, id);
}

export async function archiveDocument(ctx: CareContext, id: number): Promise<DocumentView> {
  const doc = await found(ctx, id);
  checkTransition(doc, "archive");
  await setSearchable(ctx.db, id, false);
  await updateDocument(ctx.db, id, { status: "archived", archived_at: now(ctx), updated_at: now(ctx) });
  return getDocument(ctx, id);
}

export async function restoreDocument(ctx: CareContext, id: number): Promise<DocumentView> {
  const doc = await found(ctx, id);
  checkTransition(doc, "restore");
  const counts = await chunkCounts(ctx.db, [id]);
  await updateDocument(ctx.db, id, {
    status: afterChunking(counts.get(id) ?? 0),
    archived_at: null,
    approved_at: null,
    approved_by: null,
    updated_at: now(ctx),
  });
  return getDocument(ctx, id);
}

/** Chunks the text again with today's settings and forgets its vectors, so they are made again. */
export async function reembedDocument(ctx: CareContext, id: number): Promise<DocumentView> {
  const doc = await found(ctx, id);
  checkTransition(doc, "reembed");
  const status = await rechunk(ctx, id, doc.source_text, doc.status === "approved");
  await clearEmbeddings(ctx.db, id);
  kickEmbedder(ctx);
  await updateDocument(ctx.db, id, { status, embedding_model: null, updated_at: now(ctx) });
  return getDocument(ctx, id);
}

/** The embedder heard that every chunk of the document has a vector of `model`. */
export async function markEmbedded(ctx: Pick<CareContext, "db">, id: number, model: string): Promise<void> {
  const doc = await documentById(ctx.db, id);
  if (doc && doc.embedding_model !== model) await updateDocument(ctx.db, id, { embedding_model: model });
}

export async function addImage(ctx: CareContext, id: number, upload: Upload | undefined, raw: Record<string, unknown>): Promise<ImageView> {
  const doc = await found(ctx, id);
  checkTransition(doc, "edit");
  const fields = imageFields(raw);
  if (!upload) throw new ValidationError("image: a file is required (field 'image')");
  const [checked] = await checkUploads(ctx, [upload]);
  const row = await attach(ctx, id, upload, checked, fields);
  await updateDocument(ctx.db, id, { updated_at: now(ctx) });
  if (row.alt_text.trim()) await reindexPhotos(ctx, doc);
  return imageView(ctx, row);
}

async function foundImage(ctx: CareContext, id: number, imageId: number): Promise<ImageRow> {
  await found(ctx, id);
  const img = await imageById(ctx.db, id, imageId);
  if (!img) throw new NotFoundError(`Image ${imageId} of document ${id} not found`);
  return img;
}

export async function patchImage(ctx: CareContext, id: number, imageId: number, raw: Record<string, unknown>): Promise<ImageView> {
  const img = await foundImage(ctx, id, imageId);
  const fields = imageFields(raw);
  const changes = { ...(fields.alt_text !== undefined ? { alt_text: fields.alt_text } : {}), ...(fields.ord !== undefined ? { ord: fields.ord } : {}) };
  if (Object.keys(changes).length) await updateImage(ctx.db, imageId, changes);
  if (changes.alt_text !== undefined && changes.alt_text !== img.alt_text) await reindexPhotos(ctx, await found(ctx, id));
  return imageView(ctx, { ...img, ...changes });
}

export async function deleteImage(ctx: CareContext, id: number, imageId: number): Promise<void> {
  const img = await foundImage(ctx, id, imageId);
  await deleteImageRow(ctx.db, imageId);
  if (img.alt_text.trim()) await reindexPhotos(ctx, await found(ctx, id));
}

export async function documentChunks(ctx: CareContext, id: number): Promise<{ document_id: number; items: unknown[] }> {
  await found(ctx, id);
  const chunks = await chunksOf(ctx.db, id);
  return { document_id: id, items: chunks.map((c) => ({ ...c, embedded: c.embedding_model !== null })) };
}
