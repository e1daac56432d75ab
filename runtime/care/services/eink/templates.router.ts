/** `/image/templates`: list, create (multipart), update, replace background, delete, preview. */
import { Router } from "express";
import type { CareContext } from "../../core/context";
import { intParam } from "../../../platform/http/params";
import { reply, route } from "../../../platform/http/route";
import { readMultipart } from "./multipart";
import { sendPng } from "./send-png";
import { createTemplate, deleteTemplate, getTemplate, listTemplates, replaceBackground, templateBackground, updateTemplate } from "./templates.service";

export function templatesRouter(ctx: CareContext): Router {
  const r = Router();
  const id = (req: Parameters<typeof intParam>[0]) => intParam(req, "id", "Template");
  r.get(
    "/image/templates",
    route(() => listTemplates(ctx)),
  );
  r.post(
    "/image/templates",
    route(async (req, res) => reply(201, await createTemplate(ctx, await readMultipart(req, res)))),
  );
  r.get(
    "/image/templates/:id",
    route((req) => getTemplate(ctx, id(req))),
  );
  r.put(
    "/image/templates/:id",
    route((req) => updateTemplate(ctx, id(req), req.body)),
  );
  r.put(
    "/image/templates/:id/image",
    route(async (req, res) => {
      const templateId = id(req);
      await getTemplate(ctx, templateId); // 404 before reading an upload for nothing
      return replaceBackground(ctx, templateId, await readMultipart(req, res));
    }),
  );
  r.delete(
    "/image/templates/:id",
    route(async (req) => void (await deleteTemplate(ctx, id(req)))),
  );
  r.get(
    "/image/templates/:id/preview",
    route(async (req, res) => {
      const template = await getTemplate(ctx, id(req));
      sendPng(res, await templateBackground(ctx, template), { "X-Image-Hash": template.background_hash });
    }),
  );
  return r;
}
