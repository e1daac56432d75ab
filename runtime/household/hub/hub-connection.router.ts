/**
 * The hub's address and token, set from the Household page while the service runs (issue 43
 * §1, docs/decisions.md "The hub is set up in the browser"); admin only (roles.ts):
 * - `GET /admin/connections/hub`: the address in use, where it comes from, whether a token is
 *   set (never the token), whether the hub is connected and how many entities it has;
 * - `POST /admin/connections/hub/test` `{url, token?}`: what careflow finds there (entities by
 *   domain, areas), nothing kept; without a token, the one in use is tried;
 * - `PUT /admin/connections/hub` `{url, token?}`: tested the same way, then kept in the store
 *   and used at once; a test that fails is refused with 422 naming the field to change.
 */
import { Router, type Request } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ValidationError } from "../../platform/core/errors";
import { parseInput } from "../../platform/core/validation";
import { route } from "../../platform/http/route";
import type { HubLink } from "./hub";
import { savedHubConnection, saveHubConnection } from "./hub-connection.store";
import { probeHub } from "./hub-probe";

const hubUrl = z
  .string()
  .trim()
  .min(1, "must not be empty: the hub's address, like http://homeassistant.local:8123")
  .max(500)
  .refine((v) => {
    try {
      return ["http:", "https:"].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, "must be the hub's address starting with http:// or https://, like http://homeassistant.local:8123");

const connectionSchema = z
  .object({
    url: hubUrl,
    // Typed once: left out, the token in use is kept (and tried).
    token: z.string().trim().min(1, "must not be empty").max(2000).optional(),
  })
  .strict();

export interface HubConnectionView {
  url: string | null;
  token_set: boolean;
  source: HubLink["source"];
  connected: boolean;
  entities: number;
  saved_at: string | null;
  saved_by: string | null;
}

async function view(ctx: PlatformContext, link: HubLink): Promise<HubConnectionView> {
  const saved = await savedHubConnection(ctx.db);
  const client = link.client;
  return {
    url: client?.url ?? null,
    token_set: !!client,
    source: link.source,
    connected: client?.connected ?? false,
    entities: client?.states().length ?? 0,
    saved_at: saved?.saved_at ?? null,
    saved_by: saved?.saved_by ?? null,
  };
}

/** The body's address, and its token or the one in use. */
async function target(ctx: PlatformContext, req: Request): Promise<{ url: string; token: string }> {
  const body = parseInput(connectionSchema, req.body);
  const token = body.token ?? (await savedHubConnection(ctx.db))?.token ?? ctx.settings.hub.token;
  if (!token) throw new ValidationError("token: type the hub's long-lived access token (made in the hub's profile page)");
  return { url: body.url, token };
}

export function hubConnectionRouter(ctx: PlatformContext, link: HubLink): Router {
  const r = Router();
  r.get(
    "/admin/connections/hub",
    route(() => view(ctx, link)),
  );
  r.post(
    "/admin/connections/hub/test",
    route(async (req) => {
      const t = await target(ctx, req);
      return probeHub(t.url, t.token);
    }),
  );
  r.put(
    "/admin/connections/hub",
    route(async (req) => {
      const t = await target(ctx, req);
      const found = await probeHub(t.url, t.token);
      if (!found.ok) throw new ValidationError(`${found.field}: ${found.message}`);
      await saveHubConnection(ctx.db, { ...t, saved_at: isoNow(ctx.clock), saved_by: req.principal?.name ?? "" });
      link.configure(t);
      // The other instances (the one holding the hub connection among them) read it from the store.
      ctx.bus.publish("hub.configured", {});
      ctx.log.info({ url: t.url, by: req.principal?.name }, "hub: address and token set from the Household page");
      return { ...(await view(ctx, link)), found };
    }),
  );
  return r;
}
