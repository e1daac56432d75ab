/** `POST /rules/{id}/rehearse`: what the rule (or a draft of it) would have done in a recorded window. */
import { Router } from "express";
import type { CareContext } from "../../core/context";
import { intParam } from "../../../platform/http/params";
import { route } from "../../../platform/http/route";
import { rehearseRule } from "./rehearse.service";

export function rehearseRouter(ctx: CareContext): Router {
  const r = Router();
  r.post(
    "/rules/:id/rehearse",
    route((req) => rehearseRule(ctx, intParam(req, "id", "Rule"), req.body)),
  );
  return r;
}
