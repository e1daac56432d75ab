/**
 * `/api/v1`: authentication and authorization first, then the JSON body (per-route size
 * limit, no NUL, bounded depth) and the query check, then the resource routers. An
 * unauthenticated caller learns nothing but 401, and its body is never read (except on the
 * routes a device posts to with its key in the body).
 */
import { Router } from "express";
import { authenticate } from "../auth/authenticate";
import type { FailureThrottle } from "../auth/failure-throttle";
import type { AppContext } from "../context";
import { activitiesRouter } from "../activities/activities.router";
import { alertsRouter } from "../alerts/alerts.router";
import { einkRouter } from "../eink/eink.router";
import { eventLogsRouter } from "../events/event-logs.router";
import { adminConfigRouter } from "../ops/ops.router";
import { personsRouter } from "../persons/persons.router";
import { roomsRouter } from "../rooms/rooms.router";
import { rulesRouter } from "../rules/rules.router";
import { bundlesRouter } from "../rules/bundles/bundles.router";
import { catalogRouter } from "../pipeline/catalog/catalog.router";
import { llmRouter } from "../llm/llm.router";
import { runsRouter } from "../pipeline/runs/runs.router";
import { sensorsRouter } from "../sensors/sensors.router";
import { webhookTriggerRouter, webhooksRouter } from "../pipeline/triggers/webhooks.router";
import { interactiveRouter } from "../interactive/interactive.router";
import { notFoundHandler } from "./error-handler";
import { jsonBody, queryGuard } from "./json-body";

/** Routers of later capabilities join here; each is `(ctx) => Router`. */
export type RouterFactory = (ctx: AppContext) => Router;

export const V1_ROUTERS: readonly RouterFactory[] = [
  roomsRouter,
  sensorsRouter,
  personsRouter,
  alertsRouter,
  activitiesRouter,
  eventLogsRouter,
  adminConfigRouter,
  bundlesRouter,
  rulesRouter,
  catalogRouter,
  llmRouter,
  runsRouter,
  einkRouter,
  webhooksRouter,
  interactiveRouter,
];

export function apiV1(ctx: AppContext, throttle: FailureThrottle, extra: readonly RouterFactory[] = []): Router {
  const r = Router();
  // An e-ink display may only be able to send its key in an Authorization header.
  r.get("/image/active", authenticate(ctx.keys, throttle, "bare-or-bearer"), queryGuard);
  // A webhook call is authenticated by its rule's X-Webhook-Secret, not an API key.
  r.use(webhookTriggerRouter(ctx));
  r.use(authenticate(ctx.keys, throttle), jsonBody(), queryGuard);
  for (const make of [...V1_ROUTERS, ...extra]) r.use(make(ctx));
  r.use(notFoundHandler);
  return r;
}
