/**
 * `/cts/*`: the tracking cameras, the dementia signals (listed through each person's alert
 * profile, acknowledged with feedback) and the presence chain's reload. With `cts.enabled`
 * false every one but the reload answers 404 `{"detail", "code": "cts.disabled"}`, as the spec
 * says; the presence chain exists without tracking, so its reload still works.
 */
import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { intParam } from "../../platform/http/params";
import { queryParser } from "../../platform/http/query";
import { route } from "../../platform/http/route";
import { reloadPresenceConfig } from "../tracking/presence-config";
import { acknowledge, listProfileSignals } from "./signal-views";

export const CTS_DISABLED = { detail: "Continuous tracking is disabled (cts.enabled is false)", code: "cts.disabled" } as const;

const signalsQuery = queryParser({
  person_id: z.string().min(1).max(64).optional(),
  kind: z.string().min(1).max(40).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export function ctsRouter(ctx: PlatformContext): Router {
  const r = Router();
  // The presence chain (hub sensors, the identification service, tracking) exists without
  // continuous tracking: its reload answers with tracking off too (issue 45; the spec's other
  // /cts routes keep their 404).
  r.post(
    "/cts/presence-config/reload",
    route(() => reloadPresenceConfig(ctx)),
  );
  r.use("/cts", (_req, res, next) => {
    if (ctx.settings.cts.enabled) next();
    else res.status(404).json(CTS_DISABLED);
  });
  r.get(
    "/cts/cameras",
    route(() => ctx.settings.cts.cameras.map((c) => ({ id: c.id, display_name: c.name, rtsp_url: c.rtsp_url, location: c.location }))),
  );
  r.get(
    "/cts/signals",
    route((req) => {
      const q = signalsQuery(req);
      return listProfileSignals(ctx, { person_ids: q.person_id ? [q.person_id] : [], kinds: q.kind ? [q.kind] : [] }, q.limit);
    }),
  );
  r.get(
    "/cts/signals/unacknowledged",
    route((req) => {
      const q = signalsQuery(req);
      return listProfileSignals(ctx, { person_ids: q.person_id ? [q.person_id] : [], kinds: q.kind ? [q.kind] : [], unacknowledged: true }, q.limit);
    }),
  );
  r.post(
    "/cts/signals/:id/acknowledge",
    route((req) => acknowledge(ctx, intParam(req, "id", "Dementia signal"), req.body, req.principal?.name ?? "unknown")),
  );
  return r;
}
