/**
 * Asking and what was asked: `POST /knowledge/query` {query} (the caregiver's page tries a
 * question: the answer and the passages that made it) and `GET /knowledge-interactions/queries`
 * (every question logged; filters `date` (a local day), `answered_via`, `q`; paged).
 */
import { Router } from "express";
import { z } from "zod";
import type { CareContext } from "../../core/context";
import { parseInput } from "../../../platform/core/validation";
import { isoAt } from "../../../platform/core/clock";
import { pagingQuery, queryParser } from "../../../platform/http/query";
import { route } from "../../../platform/http/route";
import { dayBounds, parseDate } from "../reports/local-day";
import { listQueries } from "./retrieval";
import { askRepository } from "./ask";

const askBody = z.object({ query: z.string().trim().min(1).max(1000) }).strict();

const questionsQuery = queryParser({
  date: z.string().max(10).optional(),
  answered_via: z.enum(["model", "passage", "none"]).optional(),
  q: z.string().min(1).max(200).optional(),
  ...pagingQuery(50, 200),
});

export function knowledgeQueryRouter(ctx: CareContext): Router {
  const r = Router();
  r.post(
    "/knowledge/query",
    route(async (req) => {
      const { query } = parseInput(askBody, req.body ?? {}, "body");
      return askRepository(ctx, query, "editor");
    }),
  );
  r.get(
    "/knowledge-interactions/queries",
    route(async (req) => {
      const q = questionsQuery(req);
      const day = q.date ? dayBounds(parseDate(q.date, "date"), ctx.settings.app.timezone) : null;
      const { items, total } = await listQueries(ctx.db, {
        from: day ? isoAt(day.from) : undefined,
        to: day ? isoAt(day.to) : undefined,
        answered_via: q.answered_via,
        q: q.q,
        limit: q.limit,
        offset: q.offset,
      });
      return { items, total, limit: q.limit, offset: q.offset };
    }),
  );
  return r;
}
