/**
 * `/knowledge-interactions/*` and `/knowledge/analytics/tags` (read), and the senior's own
 * writes: a quiz answer, stopping a quiz, ending it, putting a card away. The web app sends
 * the same writes over `/ws` (delivery.ws.ts), with these routes' permissions.
 */
import { Router } from "express";
import { z } from "zod";
import type { CareContext } from "../../../core/context";
import { intParam } from "../../../../platform/http/params";
import { pagingQuery, queryParser } from "../../../../platform/http/query";
import { route } from "../../../../platform/http/route";
import { parseInput } from "../../../../platform/core/validation";
import { dismissCard } from "./card-delivery.service";
import { listCardDeliveries, listQuizSessions, quizSessionDetail, tagAnalytics } from "./interactions.service";
import { abandon, answer, complete } from "./quiz-sessions.service";
import { SESSION_STATUSES } from "./quiz-sessions.store";

const BASE = "/knowledge-interactions";
const date = z.string().max(10).optional();

export const answerBody = z
  .object({
    question_ord: z.number().int(),
    choice_id: z.string().max(64).nullish(),
    open_ended_text: z.string().max(2000).nullish(),
  })
  .strict();

const sessionsQuery = queryParser({ date, status: z.enum(SESSION_STATUSES).optional(), ...pagingQuery(100, 1000) });

const deliveriesQuery = queryParser({ date, ...pagingQuery(100, 1000) });

export function interactionsRouter(ctx: CareContext): Router {
  const r = Router();
  const sessionId = (req: Parameters<typeof intParam>[0]) => intParam(req, "id", "Quiz session");
  r.get(
    `${BASE}/quiz-sessions`,
    route((req) => listQuizSessions(ctx, sessionsQuery(req))),
  );
  r.get(
    `${BASE}/quiz-sessions/:id`,
    route((req) => quizSessionDetail(ctx, sessionId(req))),
  );
  r.post(
    `${BASE}/quiz-sessions/:id/answers`,
    route((req) => {
      const id = sessionId(req);
      const body = parseInput(answerBody, req.body);
      return answer(ctx, id, body.question_ord, body, "rest");
    }),
  );
  r.post(
    `${BASE}/quiz-sessions/:id/complete`,
    route((req) => complete(ctx, sessionId(req))),
  );
  r.post(
    `${BASE}/quiz-sessions/:id/abandon`,
    route((req) => abandon(ctx, sessionId(req), req.principal?.name ?? "api")),
  );
  r.get(
    `${BASE}/info-card-deliveries`,
    route((req) => listCardDeliveries(ctx, deliveriesQuery(req))),
  );
  r.post(
    `${BASE}/info-card-deliveries/:id/dismiss`,
    route((req) => dismissCard(ctx, intParam(req, "id", "Info card delivery"), req.principal?.name ?? "api")),
  );
  r.get(
    "/knowledge/analytics/tags",
    route(() => tagAnalytics(ctx)),
  );
  return r;
}
