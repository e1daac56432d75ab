/**
 * `/knowledge/documents`: create (multipart: title, source_text or a text file source_file,
 * tags, images[] with image_descriptions), list
 * (`status`, `tag`, `q`, paged), detail (images with signed URLs, chunk count), patch, hard
 * delete, approve / archive / restore / reembed, the photos (attach, patch, delete) and the
 * chunks the text was cut into.
 */
import { Router, type Request } from "express";
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import { ValidationError } from "../../../../platform/core/errors";
import { intParam } from "../../../../platform/http/params";
import { pagingQuery, queryParser } from "../../../../platform/http/query";
import { reply, route } from "../../../../platform/http/route";
import { readDocumentForm } from "./document-form";
import {
  addImage,
  approveDocument,
  archiveDocument,
  createDocument,
  deleteDocument,
  deleteImage,
  documentChunks,
  getDocument,
  listDocuments,
  patchDocument,
  patchImage,
  reembedDocument,
  restoreDocument,
} from "./documents.service";

const by = (req: Request): string => req.principal?.name ?? "api";

const jsonObject = (req: Request): Record<string, unknown> => {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new ValidationError("body: must be a JSON object");
  return body as Record<string, unknown>;
};

const documentsQuery = queryParser({
  status: z.enum(["uploaded", "chunked", "approved", "archived"]).optional(),
  tag: z.string().min(1).max(50).optional(),
  q: z.string().min(1).max(200).optional(),
  ...pagingQuery(50, 200),
});

export function documentsRouter(ctx: CareContext): Router {
  const r = Router();
  const id = (req: Request) => intParam(req, "id", "Document");
  const imageId = (req: Request) => intParam(req, "img_id", "Image");
  const base = "/knowledge/documents";
  r.post(
    base,
    route(async (req, res) => {
      const form = await readDocumentForm(req, res, ctx.settings, { textFile: true });
      return reply(201, await createDocument(ctx, by(req), form.fields, form.uploads));
    }),
  );
  r.get(
    base,
    route((req) => {
      const q = documentsQuery(req);
      return listDocuments(ctx, q);
    }),
  );
  r.get(
    `${base}/:id`,
    route((req) => getDocument(ctx, id(req))),
  );
  r.patch(
    `${base}/:id`,
    route((req) => patchDocument(ctx, id(req), jsonObject(req))),
  );
  r.delete(
    `${base}/:id`,
    route(async (req) => void (await deleteDocument(ctx, id(req)))),
  );
  r.post(
    `${base}/:id/approve`,
    route((req) => approveDocument(ctx, id(req), by(req))),
  );
  r.post(
    `${base}/:id/archive`,
    route((req) => archiveDocument(ctx, id(req))),
  );
  r.post(
    `${base}/:id/restore`,
    route((req) => restoreDocument(ctx, id(req))),
  );
  r.post(
    `${base}/:id/reembed`,
    route((req) => reembedDocument(ctx, id(req))),
  );
  r.get(
    `${base}/:id/chunks`,
    route((req) => documentChunks(ctx, id(req))),
  );
  r.post(
    `${base}/:id/images`,
    route(async (req, res) => {
      const docId = id(req);
      await getDocument(ctx, docId); // 404 before reading an upload for nothing
      const form = await readDocumentForm(req, res, ctx.settings);
      if (form.uploads.length > 1) throw new ValidationError("image: one photo at a time");
      return reply(201, await addImage(ctx, docId, form.uploads[0], form.fields));
    }),
  );
  r.patch(
    `${base}/:id/images/:img_id`,
    route((req) => patchImage(ctx, id(req), imageId(req), jsonObject(req))),
  );
  r.delete(
    `${base}/:id/images/:img_id`,
    route(async (req) => void (await deleteImage(ctx, id(req), imageId(req)))),
  );
  return r;
}
