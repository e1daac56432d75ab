/** `/knowledge/layouts`: the layouts cards and quiz questions are drawn with (read-only). */
import { Router } from "express";
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import { NotFoundError } from "../../../../platform/core/errors";
import { queryParser } from "../../../../platform/http/query";
import { route } from "../../../../platform/http/route";
import { APPLIES_TO } from "./layout-schema";
import { findLayout, listLayouts } from "./layouts";

const layoutsQuery = queryParser({ applies_to: z.enum(APPLIES_TO).optional() });

export function layoutsRouter(ctx: CareContext): Router {
  const r = Router();
  r.get(
    "/knowledge/layouts",
    route((req) => listLayouts(ctx.settings, layoutsQuery(req).applies_to)),
  );
  r.get(
    "/knowledge/layouts/:id",
    route((req) => {
      const layout = findLayout(ctx.settings, req.params.id);
      if (!layout) throw new NotFoundError(`Layout ${req.params.id.slice(0, 80)} not found`);
      return layout;
    }),
  );
  return r;
}
