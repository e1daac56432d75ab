import { Router } from "express";
import { z } from "zod";
import type { CareContext } from "../context";
import { pagingQuery, parseQuery } from "../../../platform/http/query";
import { route } from "../../../platform/http/route";
import { EVENT_LOG_STATUSES, listEventLogs } from "./event-logs.service";

export function eventLogsRouter(ctx: CareContext): Router {
  const r = Router();
  r.get(
    "/events",
    route((req) =>
      listEventLogs(
        ctx,
        parseQuery(req, {
          rule_name: z.string().min(1).optional(),
          status: z.enum(EVENT_LOG_STATUSES).optional(),
          ...pagingQuery(50, 200),
        }),
      ),
    ),
  );
  return r;
}
