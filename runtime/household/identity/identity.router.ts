/**
 * Enrollment and visitors: `POST /persons/{id}/enroll` (multipart, 5–10 photos in `photos`),
 * `GET|DELETE /persons/{id}/enrollment`, `GET /persons/enrolled`, `GET /visitors`,
 * `GET|DELETE /visitors/{id}`, `POST /visitors/{id}/name`. Mounted before the persons router,
 * so `/persons/enrolled` is not read as a person's id.
 */
import { Router, type Request, type Response } from "express";
import multer from "multer";
import type { PlatformContext } from "../../platform/context";
import { ValidationError } from "../../platform/core/errors";
import { reply, route } from "../../platform/http/route";
import { deleteEnrollment, enroll, getEnrollment, listEnrollments, MAX_PHOTOS, type Photo } from "./identity.service";
import { getVisitor, listVisitors, nameVisitor, removeVisitor } from "./visitors";

const MAX_PHOTO_BYTES = 15 * 1024 * 1024;

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_PHOTO_BYTES, files: MAX_PHOTOS, fields: 10, fieldSize: 1024 },
}).array("photos", MAX_PHOTOS);

function describe(err: unknown): string {
  if (err instanceof multer.MulterError) {
    if (err.code === "LIMIT_FILE_SIZE") return `photos: a photo is larger than ${MAX_PHOTO_BYTES / (1024 * 1024)} MB`;
    if (err.code === "LIMIT_FILE_COUNT" || (err.code === "LIMIT_UNEXPECTED_FILE" && err.field === "photos")) return `photos: at most ${MAX_PHOTOS} photos`;
    if (err.code === "LIMIT_UNEXPECTED_FILE") return `${err.field ?? "body"}: unexpected file (send the photos in the field 'photos')`;
    return `${err.field ?? "body"}: ${err.message}`;
  }
  return `body: not a readable multipart form (${err instanceof Error ? err.message : String(err)})`;
}

/** A file name as a 422 names it: printable characters only, at most 120. */
const safeName = (name: string, i: number): string =>
  [...name]
    .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f)
    .join("")
    .slice(0, 120) || `photo-${i + 1}`;

async function readPhotos(req: Request, res: Response): Promise<Photo[]> {
  if (!req.is("multipart/form-data")) throw new ValidationError(`body: send multipart/form-data with 5 to ${MAX_PHOTOS} photos in the field 'photos'`);
  await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(new ValidationError(describe(err))) : resolve())));
  const files = (req.files ?? []) as Express.Multer.File[];
  return files.map((f, i) => ({ name: safeName(f.originalname ?? "", i), bytes: f.buffer }));
}

export function identityRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/persons/enrolled",
    route(() => listEnrollments(ctx)),
  );
  r.post(
    "/persons/:id/enroll",
    route(async (req, res) => reply(201, await enroll(ctx, req.params.id, await readPhotos(req, res)))),
  );
  r.get(
    "/persons/:id/enrollment",
    route((req) => getEnrollment(ctx, req.params.id)),
  );
  r.delete(
    "/persons/:id/enrollment",
    route(async (req) => void (await deleteEnrollment(ctx, req.params.id))),
  );
  r.get(
    "/visitors",
    route(() => listVisitors(ctx)),
  );
  r.get(
    "/visitors/:id",
    route((req) => getVisitor(ctx, req.params.id)),
  );
  r.post(
    "/visitors/:id/name",
    route((req) => nameVisitor(ctx, req.params.id, req.body)),
  );
  r.delete(
    "/visitors/:id",
    route(async (req) => void (await removeVisitor(ctx, req.params.id))),
  );
  return r;
}
