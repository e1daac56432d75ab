/**
 * A slot's or question's picture from a request: a multipart form with one file `image` (and
 * an optional `alt_text`), held in memory up to `knowledge.max_upload_bytes` (one byte more is
 * a 413 before the rest is read), or JSON `{document_image_id}` naming a document's picture.
 */
import type { Request, Response } from "express";
import multer from "multer";
import type { Settings } from "../../../../../settings";
import { ValidationError } from "../../../../platform/core/errors";
import { inputProblem } from "../../../../platform/http/json-body";
import { PayloadTooLargeError } from "./image-input";

export type PictureSource = { kind: "upload"; bytes: Buffer | undefined; fields: Record<string, string> } | { kind: "json"; body: unknown };

const uploaders = new WeakMap<object, ReturnType<typeof multer>>();

function uploader(settings: Settings) {
  let u = uploaders.get(settings.knowledge);
  if (!u) {
    u = multer({ storage: multer.memoryStorage(), limits: { fileSize: settings.knowledge.max_upload_bytes, files: 1, fields: 10, fieldSize: 64 * 1024 } });
    uploaders.set(settings.knowledge, u);
  }
  return u;
}

export async function readPicture(req: Request, res: Response, settings: Settings): Promise<PictureSource> {
  if (!req.is("multipart/form-data")) return { kind: "json", body: req.body };
  await new Promise<void>((resolve, reject) =>
    uploader(settings).single("image")(req, res, (err: unknown) => {
      if (!err) return resolve();
      if (err instanceof multer.MulterError && err.code === "LIMIT_FILE_SIZE")
        return reject(new PayloadTooLargeError(`image: larger than knowledge.max_upload_bytes (${settings.knowledge.max_upload_bytes})`));
      if (err instanceof multer.MulterError) return reject(new ValidationError(`${err.field ?? "body"}: ${err.message} (send one file field 'image')`));
      reject(new ValidationError(`body: not a readable multipart form (${err instanceof Error ? err.message : String(err)})`));
    }),
  );
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof value !== "string") throw new ValidationError(`${k}: must be a plain text field`);
    fields[k] = value;
  }
  const problem = inputProblem(fields, "body");
  if (problem) throw new ValidationError(problem);
  return { kind: "upload", bytes: req.file?.buffer, fields };
}
