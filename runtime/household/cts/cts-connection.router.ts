/**
 * The tracking service's link on the Household page (issue 43 §1); admin only (roles.ts):
 * - `GET /admin/connections/tracking`: whether tracking is on, its broker's address (any
 *   password hidden), the link's state and its streams;
 * - `POST /admin/connections/tracking/test` `{nats_url}`: which of careflow's streams that
 *   broker has, nothing kept, and the settings-file lines that switch tracking on with it.
 * The address itself stays in the settings file (docs/decisions.md, "The tracking service is
 * tested in the browser, set in the settings file").
 */
import { Router } from "express";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { parseInput } from "../../platform/core/validation";
import { route } from "../../platform/http/route";
import type { CtsHealth } from "./cts-status";
import { probeTracking } from "./cts-probe";
import { allStreamNames } from "./cts-streams";

const testSchema = z
  .object({
    nats_url: z
      .string()
      .trim()
      .min(1, "must not be empty: the broker's address, like nats://127.0.0.1:4222")
      .max(500)
      .regex(/^(nats|tls|ws|wss):\/\/[^\s]+$/, "must be the broker's address starting with nats://, like nats://127.0.0.1:4222"),
  })
  .strict();

export function ctsConnectionRouter(ctx: PlatformContext, health: () => CtsHealth): Router {
  const r = Router();
  r.get(
    "/admin/connections/tracking",
    route(() => {
      const h = health();
      return {
        enabled: h.enabled,
        nats_url: h.nats_url,
        stream_prefix: ctx.settings.cts.stream_prefix,
        state: h.state,
        connected_since: h.connected_since,
        last_error: h.last_error,
        streams: allStreamNames(ctx.settings.cts.stream_prefix).map((n) => n.stream),
      };
    }),
  );
  r.post(
    "/admin/connections/tracking/test",
    route(async (req) => {
      const { nats_url } = parseInput(testSchema, req.body);
      const found = await probeTracking(nats_url, ctx.settings.cts.stream_prefix);
      // What switches tracking on with this broker: said on the page, put in the settings file.
      return { ...found, settings: { cts: { enabled: true, nats_url } } };
    }),
  );
  return r;
}
