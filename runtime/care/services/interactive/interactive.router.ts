import { Router } from "express";
import type { CareContext } from "../../core/context";
import { route } from "../../../platform/http/route";
import { respond } from "./interactive.service";
import { registerInteractiveHandlers } from "./interactive.ws";

export function interactiveRouter(ctx: CareContext): Router {
  // The router factory runs once per app: the /ws answer frame is registered with it.
  registerInteractiveHandlers(ctx);
  const r = Router();
  r.post(
    "/interactive-responses",
    route((req) => respond(ctx, req.body, req.principal?.name ?? "unknown")),
  );
  return r;
}
