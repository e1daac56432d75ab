/** `/knowledge/voice-defaults`: the default voice instruction per delivery type. */
import { Router } from "express";
import type { CareContext } from "../../../core/context";
import { route } from "../../../../platform/http/route";
import { voiceDefaults } from "./voice-defaults";

export function voiceDefaultsRouter(ctx: CareContext): Router {
  const r = Router();
  r.get(
    "/knowledge/voice-defaults",
    route(() => voiceDefaults(ctx.settings)),
  );
  return r;
}
