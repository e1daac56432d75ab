/**
 * `/api/v1`: JSON body, authentication and authorization, then the resource routers.
 * A body that is not valid JSON is answered only after the caller is known, so an
 * unauthenticated caller learns nothing but 401.
 */
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { authenticate } from "../auth/authenticate";
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

declare module "express-serve-static-core" {
  interface Request {
    bodyError?: unknown;
  }
}

const BODY_LIMIT = "25mb"; // camera frames arrive as base64 JPEG inside JSON

function deferredJson(): RequestHandler {
  const parse = express.json({ limit: BODY_LIMIT });
  return (req: Request, res: Response, next: NextFunction) =>
    parse(req, res, (err?: unknown) => {
      if (err) {
        req.bodyError = err;
        req.body = undefined;
      }
      next();
    });
}

const raiseBodyError: RequestHandler = (req, _res, next) => next(req.bodyError);

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

export function apiV1(ctx: AppContext, extra: readonly RouterFactory[] = []): Router {
  const r = Router();
  r.use(deferredJson());
  // An e-ink display may only be able to send its key in an Authorization header.
  r.get("/image/active", authenticate(ctx.keys, "bare-or-bearer"));
  // A webhook call is authenticated by its rule's X-Webhook-Secret, not an API key.
  r.use(webhookTriggerRouter(ctx));
  r.use(authenticate(ctx.keys), raiseBodyError);
  for (const make of [...V1_ROUTERS, ...extra]) r.use(make(ctx));
  r.use(notFoundHandler);
  return r;
}
