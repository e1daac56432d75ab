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
  // The senior's tablet is set up once by opening this link (docs/webapp.md): the web app
  // keeps the key from the fragment and removes it from the address bar.
  r.get(
    "/admin/webapp-link",
    route((req) => {
      const base = (ctx.settings.app.public_url ?? `${req.protocol}://${req.get("host") ?? "localhost"}`).replace(/\/+$/, "");
      const links = ctx.settings.auth.api_keys
        .filter((k) => k.permissions.includes("webapp"))
        .map((k) => ({ key_name: k.name, url: `${base}/app/#key=${encodeURIComponent(k.key)}` }));
      return {
        links,
        hint: links.length
          ? "Open the link once on the senior's tablet (or turn it into a QR code); the app keeps the key. Then add it to the home screen."
          : 'No web app key: set CAREFLOW_WEBAPP_KEY or add an api_keys entry with permissions ["webapp"].',
      };
    }),
  );
  r.get(
    "/admin/app-info",
    route(() => ({ name: ctx.settings.app.name, app: packageInfo().name, version: packageInfo().version, timezone: ctx.settings.app.timezone })),
  );
  return r;
}
