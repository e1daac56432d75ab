/** `POST /rules/draft-from-words`: a rule drafted by the authoring model from a sentence, not saved. */
import { Router } from "express";
import type { CareContext } from "../../core/context";
import { route } from "../../../platform/http/route";
import { draftFromWords } from "./draft-from-words.service";

export function draftFromWordsRouter(ctx: CareContext): Router {
  const r = Router();
  r.post(
    "/rules/draft-from-words",
    route((req) => draftFromWords(ctx, req.body)),
  );
  return r;
}
