/**
 * Operations: `/health` (no auth: database and Node-RED state), and behind a key
 * `/api/v1/admin/app-info` (name, version, timezone) and `/api/v1/admin/config`
 * (effective settings, redacted).
 */
import { Router } from "express";
import type { AppContext } from "../context";
import { pingStore } from "../../platform/db/store";
import { route, reply } from "../../platform/http/route";
import { packageInfo } from "../../platform/config/app-info";
import { redactSecrets } from "./redact";

export interface HealthSources {
  nodeRedState: () => string;
  startedAt: number;
}

export function healthRouter(ctx: AppContext, sources: HealthSources): Router {
  const r = Router();
  r.get(
    "/health",
    route(async () => {
      const dbOk = await pingStore(ctx.db);
      const nodeRed = sources.nodeRedState();
      const ok = dbOk && (nodeRed === "started" || nodeRed === "disabled");
      return reply(ok ? 200 : 503, {
        status: ok ? "ok" : "degraded",
        version: packageInfo().version,
        uptime_seconds: Math.round((Date.now() - sources.startedAt) / 1000),
        database: { ok: dbOk, dialect: ctx.dialect },
        node_red: { state: nodeRed },
      });
    }),
  );
  return r;
}

export function adminConfigRouter(ctx: AppContext): Router {
  const r = Router();
  r.get(
    "/admin/config",
    route(() => redactSecrets(ctx.settings)),
  );
  r.get(
    "/admin/app-info",
    route(() => ({ name: ctx.settings.app.name, app: packageInfo().name, version: packageInfo().version, timezone: ctx.settings.app.timezone })),
  );
  return r;
}
