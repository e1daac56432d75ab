/**
 * Reads a document's form: multipart (text fields, photos in `images` / `images[]` or, for
 * one photo, `image`), or a JSON body with the same text fields and no photos. The size
 * limit is `knowledge.max_upload_bytes` per photo (413 past it); every other multer
 * failure is a 422 naming the field.
 */
import type { Request, Response } from "express";
import multer from "multer";
import type { Settings } from "../../../../settings";
import { ValidationError } from "../../../platform/core/errors";
import { formTextFields } from "../../../platform/http/form-fields";
import type { Upload } from "./documents.service";
import { TooLargeError } from "./image-check";

export const MAX_IMAGES_PER_UPLOAD = 20;
const FILE_FIELDS = new Set(["images", "images[]", "image"]);

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

export async function readDocumentForm(req: Request, res: Response, settings: Settings): Promise<DocumentForm> {
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
  const stray = files.find((f) => !FILE_FIELDS.has(f.fieldname));
  if (stray) throw new ValidationError(`${stray.fieldname.slice(0, 60)}: unexpected file (photos go in 'images')`);
  return { fields, uploads: files.map((f, i) => ({ field: `images[${i}]`, bytes: f.buffer })) };
}
