import { Router } from "express";
import type { CareContext } from "../../core/context";
import { route } from "../../../platform/http/route";
import { listModels } from "./registry";

/** `GET /pipeline/llm-models`: the model registry, without api keys. */
export function llmRouter(ctx: CareContext): Router {
  const r = Router();
  // A bare list, like the sibling catalogs (/pipeline/step-types ...) the editor reads.
  r.get(
    "/pipeline/llm-models",
    route(() => listModels(ctx.settings)),
  );
  return r;
}
