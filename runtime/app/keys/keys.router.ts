/**
 * `/api/v1/admin/keys` (issue 43): list every key (the settings' read-only, never a secret),
 * make one, rotate one, revoke one; `/api/v1/admin/audit`: who changed what, newest first.
 * Admin keys only (`ADMIN_ONLY_PATTERNS` for the GETs; no other role is granted the writes).
 * A device key's new secret comes with what its device is set up with (`setup`, device-setup.ts);
 * a web app key's with its tablet's set-up link and QR code (`setup`, ops/webapp-link.ts), the
 * only time the link can be made: the key is kept as a digest.
 */
import { Router, type Request } from "express";
import { z } from "zod";
import type { AppContext } from "../context";
import { listAudit } from "../../platform/audit/audit.store";
import { intParam } from "../../platform/http/params";
import { queryParser } from "../../platform/http/query";
import { reply, route } from "../../platform/http/route";
import { createKey, listKeys, revokeKey, rotateKey, type ManagedKeyView } from "./keys.service";
import { deviceSetup } from "./device-setup";
import { webappSetup } from "../ops/webapp-link";

/** The audit log's page: the newest 100 unless asked, at most 1000. */
export const AUDIT_MAX_LIMIT = 1000;

const auditQuery = queryParser({ limit: z.coerce.number().int().min(1).max(AUDIT_MAX_LIMIT).default(100) });

export function keysRouter(ctx: AppContext): Router {
  const r = Router();
  const requestBase = (req: Request) => `${req.protocol}://${req.get("host") ?? "localhost"}`;
  // The answer that holds a device's or a tablet's key also says where and how it uses it.
  const withSetup = async (req: Request, made: ManagedKeyView & { key: string }) => {
    if (made.kind === "device" && made.device_type) return { ...made, setup: await deviceSetup(ctx, requestBase(req), made.device_type, made.key) };
    if (made.kind === "api" && made.role === "webapp") return { ...made, setup: await webappSetup(ctx, requestBase(req), made.key) };
    return made;
  };
  r.get(
    "/admin/keys",
    route(() => listKeys(ctx)),
  );
  r.post(
    "/admin/keys",
    route(async (req) => reply(201, await withSetup(req, await createKey(ctx, req.principal!, req.body)))),
  );
  r.post(
    "/admin/keys/:id/rotate",
    route(async (req) => withSetup(req, await rotateKey(ctx, req.principal!, intParam(req, "id", "Key")))),
  );
  r.delete(
    "/admin/keys/:id",
    route(async (req) => void (await revokeKey(ctx, req.principal!, intParam(req, "id", "Key")))),
  );
  r.get(
    "/admin/audit",
    route((req) => listAudit(ctx.db, auditQuery(req).limit)),
  );
  return r;
}
