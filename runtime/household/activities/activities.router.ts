import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { pagingQuery, queryParser } from "../../platform/http/query";
import { route } from "../../platform/http/route";
import { listActivities } from "./activities.service";

const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

const activitiesQuery = queryParser({
  person_id: z.string().min(1).optional(),
  activity_type: z.string().min(1).optional(),
  room_name: z.string().min(1).optional(),
  since: isoDate.optional(),
  ...pagingQuery(50, 200),
});

export function activitiesRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/activities",
    route((req) => listActivities(ctx, activitiesQuery(req))),
  );
  return r;
}
