/**
 * Operations: `/health` (no auth: database and Node-RED state), and behind a key
 * `/api/v1/admin/app-info` (name, version, timezone), `/api/v1/admin/config` (effective
 * settings, redacted) and, for admin keys only, `/api/v1/admin/webapp-link` (the tablet's
 * set-up links with QR codes), `/api/v1/admin/webapp-link/qr.svg` and `/api/v1/admin/cluster`
 * (the instances and who holds each lease, docs/cluster.md); `/api/v1/admin/health/parts`
 * (every part's state, caregivers too) and `/api/v1/admin/webapp/tablets` (the tablets
 * connected now, caregivers too).
 */
import { Router, type Request, type RequestHandler } from "express";
import type { AppContext } from "../context";
import type { Cluster } from "../../platform/cluster/cluster";
import type { LinkHealth } from "../../platform/cluster/cluster-link";
import { pingStore } from "../../platform/db/store";
import { route, reply } from "../../platform/http/route";
import { packageInfo } from "../../platform/config/app-info";
import { redactSecrets } from "./redact";
import type { CtsHealth } from "../../household/cts/cts-status";
import type { SceneSampleStatus } from "../../care/services/perception/scene-samples";
import { managedWebAppKeys, NO_KEY, webappLinkQr, webappLinks } from "./webapp-link";
import { connectedTablets } from "./webapp-tablets";
import { isLoopbackHost } from "../../platform/http/household-address";
import { lastReportOutcome } from "../../care/services/health-report/report-prefs";

export interface HealthSources {
  nodeRedState: () => string;
  /** The continuous-tracking link; absent in apps built without it. */
  cts?: () => CtsHealth;
  /** What became of the scene samples (shown under `cts` while tracking is on). */
  sceneSamples?: () => SceneSampleStatus;
  /** The revision of the flows running here (with several instances, every one runs the same after a deploy). */
  flowsRev?: () => Promise<string | null>;
  startedAt: number;
}

export function healthRouter(ctx: AppContext, sources: HealthSources): Router {
  const r = Router();
  r.get(
    "/health",
    route(async () => {
      const dbOk = await pingStore(ctx.db);
      const nodeRed = sources.nodeRedState();
      const cts = sources.cts?.();
      // Tracking on but its broker unreachable: signals and locations are not arriving, which a
      // family relying on them must learn from the health check, not from a missed alert.
      // With several instances one consumes the streams; the others stand by (docs/cluster.md).
      const ctsOk = !cts || !cts.enabled || cts.state === "connected" || cts.state === "standby";
      // With several instances: who is alive and which leases this one holds (GET /api/v1/admin/cluster has the rest).
      const cluster = ctx.cluster?.enabled ? await clusterHealth(ctx.cluster, sources.flowsRev).catch(() => null) : undefined;
      const ok = dbOk && (nodeRed === "started" || nodeRed === "disabled") && ctsOk;
      const why = [
        ...(dbOk ? [] : ["the database does not answer"]),
        ...(nodeRed === "started" || nodeRed === "disabled" ? [] : [`Node-RED is ${nodeRed}`]),
        ...(ctsOk ? [] : [`continuous tracking is ${cts?.state ?? "down"}: the NATS broker at ${cts?.nats_url ?? "?"} is not reachable`]),
      ];
      return reply(ok ? 200 : 503, {
        status: ok ? "ok" : "degraded",
        ...(ok ? {} : { detail: why.join("; ") }),
        version: packageInfo().version,
        uptime_seconds: Math.round((Date.now() - sources.startedAt) / 1000),
        database: { ok: dbOk, dialect: ctx.dialect },
        node_red: { state: nodeRed },
        ...(cts ? { cts: cts.enabled && sources.sceneSamples ? { ...cts, scene_samples: sources.sceneSamples() } : cts } : {}),
        ...(cluster !== undefined ? { cluster } : {}),
        // Every part's state in one line (GET /api/v1/admin/health/parts has each part).
        ...(ctx.parts ? { parts: ctx.parts.summary() } : {}),
      });
    }),
  );
  return r;
}

/** `/health`'s cluster part: this instance, the live ones, and the leases held here. */
async function clusterHealth(
  cluster: Cluster,
  flowsRev?: () => Promise<string | null>,
): Promise<{ instance_id: string; instances_alive: string[]; leases_held: string[]; events: LinkHealth; flows_rev: string | null }> {
  const status = await cluster.status();
  return {
    instance_id: status.instance_id,
    instances_alive: status.instances.filter((i) => i.alive).map((i) => i.instance_id),
    leases_held: status.leases.filter((l) => l.holder === status.instance_id).map((l) => l.name),
    // The NATS link: while it is down the instance serves on, but its events reach only its own clients.
    events: status.events,
    flows_rev: flowsRev ? await flowsRev().catch(() => null) : null,
  };
}

export function adminConfigRouter(ctx: AppContext): Router {
  const r = Router();
  r.get(
    "/admin/config",
    route(() => redactSecrets(ctx.settings)),
  );
  // The senior's tablet is set up once by opening this link or scanning its QR code
  // (docs/webapp.md). Admin keys only (auth/roles.ts): the link holds the web app's key.
  const requestBase = (req: Request) => `${req.protocol}://${req.get("host") ?? "localhost"}`;
  r.get(
    "/admin/webapp-link",
    route(async (req) => {
      const links = await webappLinks(ctx, requestBase(req));
      // Keys made on the Household page are kept as digests: their links were answered once, when made.
      const madeHere = await managedWebAppKeys(ctx);
      // On a machine with no network address the link is localhost's: said, so nobody scans it in vain.
      const local = links.some((l) => isLoopbackHost(new URL(l.url).host));
      return {
        links,
        made_here: madeHere,
        hint: links.length
          ? "Open the link once on the senior's tablet, or scan its QR code (qr_svg, or GET /api/v1/admin/webapp-link/qr.svg?key_name=…) with the tablet's camera; the app keeps the key. Then add it to the home screen." +
            (local ? " The link points at localhost, which only this machine opens: set app.public_url to the address the tablet reaches careflow at." : "")
          : madeHere.length
            ? `The tablet keys made here (${madeHere.map((k) => `'${k.key_name}'`).join(", ")}) had their link shown once, when made: make a new tablet link (POST /api/v1/admin/keys {"kind": "api", "role": "webapp"}) or rotate one to pair a tablet.`
            : NO_KEY,
      };
    }),
  );
  r.get(
    "/admin/webapp-link/qr.svg",
    route(async (req, res) => {
      const svg = await webappLinkQr(ctx, requestBase(req), req.query.key_name);
      // The picture holds a key: not kept by caches, and never run as a document of this origin.
      res.set({
        "content-type": "image/svg+xml; charset=utf-8",
        "cache-control": "no-store",
        "content-security-policy": "default-src 'none'",
        "x-content-type-options": "nosniff",
      });
      res.send(svg);
    }),
  );
  // Caregivers read it as they read every GET: key names and times, never a key.
  r.get(
    "/admin/webapp/tablets",
    route(() => connectedTablets(ctx)),
  );
  // Caregivers read it as they read every GET; the names of devices are no secret in the household.
  r.get(
    "/admin/health/parts",
    // `daily_report`: how the last daily health message went, per chat (null: none sent yet).
    route(async () =>
      ctx.parts
        ? { summary: ctx.parts.summary(), parts: ctx.parts.list(), daily_report: await lastReportOutcome(ctx) }
        : reply(503, { detail: "the parts are not watched yet" }),
    ),
  );
  r.get(
    "/admin/cluster",
    route(() => ctx.cluster?.status() ?? reply(503, { detail: "the cluster is not started yet" })),
  );
  r.get(
    "/admin/app-info",
    route(() => ({ name: ctx.settings.app.name, app: packageInfo().name, version: packageInfo().version, timezone: ctx.settings.app.timezone })),
  );
  return r;
}

/**
 * The spec's table names `/admin/app-info` without the `/api/v1` prefix: the same route answers
 * there too, by handing the request on as `/api/v1/admin/app-info`, so its key check and roles
 * are that route's own (mounted before `/api/v1`).
 */
export const APP_INFO_AT_ROOT = "/admin/app-info";
export const appInfoAtRoot: RequestHandler = (req, _res, next) => {
  const query = req.url.indexOf("?");
  req.url = `/api/v1${APP_INFO_AT_ROOT}${query >= 0 ? req.url.slice(query) : ""}`;
  next();
};
