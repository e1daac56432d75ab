/**
 * `/api/v1/admin/starter-rules` (issue 43 §3): the demo's example rules a household may start
 * with (GET), and making the chosen ones for this household (POST, admin only: it deploys rules).
 */
import { Router } from "express";
import type { AppContext } from "../context";
import { reply, route } from "../../platform/http/route";
import { createStarterRules, listStarterRules, parseStarterRequest } from "./starter-rules";

export function starterRulesRouter(ctx: AppContext): Router {
  const r = Router();
  r.get(
    "/admin/starter-rules",
    route(() => listStarterRules()),
  );
  r.post(
    "/admin/starter-rules",
    route(async (req) => reply(201, { rules: await createStarterRules(ctx, parseStarterRequest(req.body)) })),
  );
  return r;
}
