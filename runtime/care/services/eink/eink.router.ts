/** The one router factory of the e-ink capability, registered in `V1_ROUTERS`. */
import { Router } from "express";
import type { CareContext } from "../../core/context";
import { imagesRouter } from "./images.router";
import { templatesRouter } from "./templates.router";

export function einkRouter(ctx: CareContext): Router {
  const r = Router();
  r.use(templatesRouter(ctx));
  r.use(imagesRouter(ctx));
  return r;
}
