/**
 * Reads a document's form: multipart (text fields, photos in `images` / `images[]` or, for
 * one photo, `image`; when creating, the text may come as a file `source_file`, plain text or
 * Markdown in UTF-8, its name the title when none is given), or a JSON body with the same text
 * fields and no photos. The size limit is `knowledge.max_upload_bytes` per file (413 past it);
 * every other multer failure is a 422 naming the field.
 */
import type { Request, Response } from "express";
import multer from "multer";
import type { Settings } from "../../../../../settings";
import { ValidationError } from "../../../../platform/core/errors";
import { formTextFields } from "../../../../platform/http/form-fields";
import type { Upload } from "./documents.service";
import { MAX_SOURCE_TEXT } from "./document-input";
import { TooLargeError } from "./image-check";

export const MAX_IMAGES_PER_UPLOAD = 20;
const FILE_FIELDS = new Set(["images", "images[]", "image"]);
export const TEXT_FILE_FIELD = "source_file";
const TEXT_FILE_NAME = /\.(txt|text|md|markdown)$/i;
const TEXT_FILE_TYPES = new Set(["text/plain", "text/markdown", "text/x-markdown", "application/octet-stream", ""]);

/** A text file's words: UTF-8 (a byte-order mark dropped), no NUL, no longer than a typed text may be. */
function textOfFile(f: Express.Multer.File): string {
  const field = TEXT_FILE_FIELD;
  if (!TEXT_FILE_NAME.test(f.originalname ?? "") && !/^text\/(plain|markdown|x-markdown)$/.test(f.mimetype))
    throw new ValidationError(`${field}: '${(f.originalname ?? "").slice(0, 60)}' is not a text file (send a .txt or .md file)`);
  if (!TEXT_FILE_TYPES.has(f.mimetype) && !f.mimetype.startsWith("text/"))
    throw new ValidationError(`${field}: ${f.mimetype.slice(0, 60)} is not a text file (send a .txt or .md file)`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(f.buffer);
  } catch {
    throw new ValidationError(`${field}: not UTF-8 text (save it as UTF-8 and send it again)`);
  }
  if (text.includes("\u0000")) throw new ValidationError(`${field}: not a text file (it holds NUL bytes)`);
  if (text.length > MAX_SOURCE_TEXT) throw new ValidationError(`${field}: at most ${MAX_SOURCE_TEXT} characters`);
  if (text.trim() === "") throw new ValidationError(`${field}: the file is empty`);
  return text;
}

export interface FormOptions {
  /** Whether the document's text may come as a file (creating a document). */
  textFile?: boolean;
}

export interface DocumentForm {
  fields: Record<string, unknown>;
  uploads: Upload[];
}

function failure(err: unknown, maxBytes: number): Error {
  if (err instanceof multer.MulterError) {
    const field = err.field ?? "images";
    if (err.code === "LIMIT_FILE_SIZE") return new TooLargeError(`${field}: larger than knowledge.max_upload_bytes (${maxBytes} bytes)`);
    if (err.code === "LIMIT_FILE_COUNT") return new ValidationError(`images: at most ${MAX_IMAGES_PER_UPLOAD} photos at a time`);
    if (err.code === "LIMIT_FIELD_VALUE") return new ValidationError(`${field}: too long`);
    return new ValidationError(`${field}: ${err.message}`);
  }
  return new ValidationError(`body: not a readable multipart form (${err instanceof Error ? err.message : String(err)})`);
}

export async function readDocumentForm(req: Request, res: Response, settings: Settings, options: FormOptions = {}): Promise<DocumentForm> {
  if (!req.is("multipart/form-data")) {
    const body: unknown = req.body;
    if (body === undefined || body === null || (typeof body === "object" && !Array.isArray(body) && Object.keys(body).length === 0 && !req.is("json")))
      throw new ValidationError("body: send multipart/form-data (title, source_text, tags, images) or a JSON object");
    if (typeof body !== "object" || Array.isArray(body)) throw new ValidationError("body: must be a JSON object");
    return { fields: body as Record<string, unknown>, uploads: [] };
  }
  const maxBytes = settings.knowledge.max_upload_bytes;
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: MAX_IMAGES_PER_UPLOAD, fields: 20, fieldSize: 4 * 1024 * 1024 },
  }).any();
  await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(failure(err, maxBytes)) : resolve())));
  const fields = formTextFields(req);
  const files = (req.files ?? []) as Express.Multer.File[];
  const textFiles = options.textFile ? files.filter((f) => f.fieldname === TEXT_FILE_FIELD) : [];
  const stray = files.find((f) => !FILE_FIELDS.has(f.fieldname) && !textFiles.includes(f));
  if (stray) throw new ValidationError(`${stray.fieldname.slice(0, 60)}: unexpected file (photos go in 'images')`);
  if (textFiles.length > 1) throw new ValidationError(`${TEXT_FILE_FIELD}: one text file at a time`);
  if (textFiles.length === 1) {
    const file = textFiles[0];
    if ((fields.source_text ?? "").trim() !== "") throw new ValidationError(`${TEXT_FILE_FIELD}: send the text or a text file, not both`);
    fields.source_text = textOfFile(file);
    if ((fields.title ?? "").trim() === "") fields.title = (file.originalname ?? "").replace(TEXT_FILE_NAME, "").trim().slice(0, 200) || "Untitled";
  }
  const photos = files.filter((f) => !textFiles.includes(f));
  return { fields, uploads: photos.map((f, i) => ({ field: `images[${i}]`, bytes: f.buffer })) };
}
