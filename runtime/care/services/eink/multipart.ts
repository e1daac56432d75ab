/**
 * Reads a multipart form with at most one file, `image`, into memory (a background is a
 * few hundred kB). Every multer failure becomes a 422 naming the field, like any other
 * bad input, instead of reaching the error handler as an unknown 500.
 */
import type { Request, Response } from "express";
import multer from "multer";
import { ValidationError } from "../../../platform/core/errors";
import { formTextFields } from "../../../platform/http/form-fields";
import { MAX_UPLOAD_BYTES } from "./background";
import type { TemplateUpload } from "./templates.service";

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 30, fieldSize: 1024 * 1024 },
}).single("image");

function describe(err: unknown): string {
  if (err instanceof multer.MulterError) {
    if (err.code === "LIMIT_FILE_SIZE") return `image: larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB`;
    if (err.code === "LIMIT_UNEXPECTED_FILE") return `${err.field ?? "body"}: unexpected file (only 'image' takes a file)`;
    return `${err.field ?? "body"}: ${err.message}`;
  }
  return `body: not a readable multipart form (${err instanceof Error ? err.message : String(err)})`;
}

export async function readMultipart(req: Request, res: Response): Promise<TemplateUpload> {
  if (!req.is("multipart/form-data")) throw new ValidationError("body: send multipart/form-data (fields and an optional 'image' file)");
  await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(new ValidationError(describe(err))) : resolve())));
  const fields = formTextFields(req);
  return { fields, image: req.file?.buffer };
}
