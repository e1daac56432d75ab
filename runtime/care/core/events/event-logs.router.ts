import { Router } from "express";
import { z } from "zod";
import type { CareContext } from "../context";
import { pagingQuery, queryParser } from "../../../platform/http/query";
import { route } from "../../../platform/http/route";
import { EVENT_LOG_STATUSES, listEventLogs } from "./event-logs.service";

const eventLogsQuery = queryParser({
  rule_name: z.string().min(1).optional(),
  status: z.enum(EVENT_LOG_STATUSES).optional(),
  ...pagingQuery(50, 200),
});

export function eventLogsRouter(ctx: CareContext): Router {
  const r = Router();
  r.get(
    "/events",
    route((req) => listEventLogs(ctx, eventLogsQuery(req))),
  );
  return r;
}
