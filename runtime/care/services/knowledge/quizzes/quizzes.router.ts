/** `/quizzes`: quizzes, their lifecycle, their ordered questions and each question's picture. */
import { Router, type Request } from "express";
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import { registerMediaKeeper } from "../../../../household/media/media.service";
import { intParam } from "../../../../platform/http/params";
import { pagingQuery, queryParser } from "../../../../platform/http/query";
import { reply, route } from "../../../../platform/http/route";
import { readPicture } from "../images/upload-form";
import { actorOf, STATUSES } from "../shared/fields";
import { quizMediaKeeper } from "./quiz-media-keeper";
import { addQuestion, clearQuestionImage, deleteQuestion, patchQuestion, questionRow, reorderQuestions, setQuestionImage } from "./questions.service";
import { createQuiz, deleteQuiz, getQuiz, listQuizzes, patchQuiz, quizLifecycle } from "./quizzes.service";

const quizzesQuery = queryParser({ status: z.enum(STATUSES).optional(), tag: z.string().min(1).max(60).optional(), ...pagingQuery(50, 200) });

export function quizzesRouter(ctx: CareContext): Router {
  registerMediaKeeper(quizMediaKeeper);
  const r = Router();
  const id = (req: Request) => intParam(req, "id", "Quiz");
  const qid = (req: Request) => intParam(req, "qid", "Question");
  r.get(
    "/quizzes",
    route((req) => listQuizzes(ctx, quizzesQuery(req))),
  );
  r.post(
    "/quizzes",
    route(async (req) => reply(201, await createQuiz(ctx, actorOf(req), req.body))),
  );
  r.get(
    "/quizzes/:id",
    route((req) => getQuiz(ctx, id(req))),
  );
  r.patch(
    "/quizzes/:id",
    route((req) => patchQuiz(ctx, id(req), req.body)),
  );
  r.delete(
    "/quizzes/:id",
    route(async (req) => void (await deleteQuiz(ctx, id(req)))),
  );
  for (const action of ["approve", "archive", "restore"] as const) {
    r.post(
      `/quizzes/:id/${action}`,
      route((req) => quizLifecycle(ctx, id(req), action, actorOf(req))),
    );
  }
  // Before `/quizzes/:id/questions/:qid`: "reorder" is not a question id.
  r.post(
    "/quizzes/:id/questions/reorder",
    route((req) => reorderQuestions(ctx, id(req), req.body)),
  );
  r.post(
    "/quizzes/:id/questions",
    route(async (req) => reply(201, await addQuestion(ctx, id(req), req.body))),
  );
  r.patch(
    "/quizzes/:id/questions/:qid",
    route((req) => patchQuestion(ctx, id(req), qid(req), req.body)),
  );
  r.delete(
    "/quizzes/:id/questions/:qid",
    route(async (req) => void (await deleteQuestion(ctx, id(req), qid(req)))),
  );
  r.put(
    "/quizzes/:id/questions/:qid/image",
    route(async (req, res) => {
      const quizId = id(req);
      const questionId = qid(req);
      await questionRow(ctx, quizId, questionId); // 404 before reading an upload for nothing
      return setQuestionImage(ctx, quizId, questionId, await readPicture(req, res, ctx.settings));
    }),
  );
  r.delete(
    "/quizzes/:id/questions/:qid/image",
    route((req) => clearQuestionImage(ctx, id(req), qid(req))),
  );
  return r;
}
