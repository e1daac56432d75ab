/** The suggestion routes: drafts from the authoring model, returned to the caller and never saved. */
import { Router, type Request } from "express";
import type { CareContext } from "../../../core/context";
import { intParam } from "../../../../platform/http/params";
import { route } from "../../../../platform/http/route";
import { regenerateQuestion, suggestCard, suggestQuiz, suggestVoiceInstruction } from "./suggest.service";

export function suggestRouter(ctx: CareContext): Router {
  const r = Router();
  r.post(
    "/info-cards/suggest",
    route((req) => suggestCard(ctx, req.body)),
  );
  r.post(
    "/quizzes/suggest",
    route((req) => suggestQuiz(ctx, req.body)),
  );
  r.post(
    "/quizzes/voice-instruction-suggest",
    route((req) => suggestVoiceInstruction(ctx, req.body)),
  );
  r.post(
    "/quizzes/:id/questions/:qid/regenerate",
    route((req: Request) => regenerateQuestion(ctx, intParam(req, "id", "Quiz"), intParam(req, "qid", "Question"))),
  );
  return r;
}
