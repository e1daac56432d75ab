import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { intParam } from "../../platform/http/params";
import { boolQuery, pagingQuery, queryParser } from "../../platform/http/query";
import { route } from "../../platform/http/route";
import { actOnAlert, getAlert, listAlerts } from "./alerts.service";

const alertsQuery = queryParser({
  resolved: boolQuery.optional(),
  room_name: z.string().min(1).optional(),
  alert_type: z.string().min(1).optional(),
  ...pagingQuery(50, 200),
});

export function alertsRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/alerts",
    route((req) => listAlerts(ctx, alertsQuery(req))),
  );
  r.get(
    "/alerts/:id",
    route((req) => getAlert(ctx, intParam(req, "id", "Alert"))),
  );
  r.post(
    "/alerts/:id/action",
    route((req) => actOnAlert(ctx, intParam(req, "id", "Alert"), req.body, req.principal?.name ?? "unknown")),
  );
  return r;
}
