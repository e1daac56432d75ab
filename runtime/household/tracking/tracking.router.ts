/**
 * Where the members are: `/persons/locations`, `/persons/{id}/location`, `/persons/{id}/history`,
 * `/persons/{id}/sightings` (the presence chain's reload is a `/cts` route, household/cts). Mounted before the persons
 * router, so `/persons/locations` is never taken for a person's id.
 */
import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { queryParser } from "../../platform/http/query";
import { route } from "../../platform/http/route";
import { listMemberLocations, memberHistory, memberLocation, memberSightings } from "./location-views";

/** A month of history at most; a day by default, as the spec's example. */
const MAX_HISTORY_HOURS = 24 * 31;

const historyQuery = queryParser({ hours: z.coerce.number().positive().max(MAX_HISTORY_HOURS).default(24) });

const limitQuery = queryParser({ limit: z.coerce.number().int().min(1).max(200).default(20) });

export function trackingRouter(ctx: PlatformContext): Router {
  const r = Router();
  r.get(
    "/persons/locations",
    route(() => listMemberLocations(ctx)),
  );
  r.get(
    "/persons/:id/location",
    route((req) => memberLocation(ctx, req.params.id)),
  );
  r.get(
    "/persons/:id/history",
    route((req) => {
      const q = historyQuery(req);
      return memberHistory(ctx, req.params.id, q.hours);
    }),
  );
  r.get(
    "/persons/:id/sightings",
    route((req) => {
      const q = limitQuery(req);
      return memberSightings(ctx, req.params.id, q.limit);
    }),
  );
  return r;
}
