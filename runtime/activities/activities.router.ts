import { Router } from "express";
import { z } from "zod";
import type { AppContext } from "../context";
import { pagingQuery, parseQuery } from "../http/query";
import { route } from "../http/route";
import { listActivities } from "./activities.service";

const isoDate = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());

export function activitiesRouter(ctx: AppContext): Router {
  const r = Router();
  r.get(
    "/activities",
    route((req) =>
      listActivities(
        ctx,
        parseQuery(req, {
          person_id: z.string().min(1).optional(),
          activity_type: z.string().min(1).optional(),
          room_name: z.string().min(1).optional(),
          since: isoDate.optional(),
          ...pagingQuery(50, 200),
        }),
      ),
    ),
  );
  return r;
}
