/**
 * `/api/v1`: authentication and authorization first, then the JSON body (per-route size
 * limit, no NUL, bounded depth) and the query check, then the resource routers. An
 * unauthenticated caller learns nothing but 401, and its body is never read (except on the
 * routes a device posts to with its key in the body).
 */
import { Router } from "express";
import { authenticate } from "../platform/auth/authenticate";
import type { FailureThrottle } from "../platform/auth/failure-throttle";
import type { AppContext } from "./context";
import { activitiesRouter } from "../household/activities/activities.router";
import { alertsRouter } from "../household/alerts/alerts.router";
import { einkRouter } from "../care/services/eink/eink.router";
import { eventLogsRouter } from "../care/core/events/event-logs.router";
import { adminConfigRouter } from "./ops/ops.router";
import { keysRouter } from "./keys/keys.router";
import { backupsRouter } from "./backup/backup.router";
import { starterRulesRouter } from "./first-start/starter-rules.router";
import { personsRouter } from "../household/persons/persons.router";
import { trackingRouter } from "../household/tracking/tracking.router";
import { ctsRouter } from "../household/cts/cts.router";
import { identityRouter } from "../household/identity/identity.router";
import { roomsRouter } from "../household/rooms/rooms.router";
import { inUseRouter } from "./household-uses/in-use.router";
import { rulesRouter } from "../care/core/rules/rules.router";
import { rehearseRouter } from "../care/surfaces/rehearsal/rehearse.router";
import { bundlesRouter } from "../care/core/rules/bundles/bundles.router";
import { draftFromWordsRouter } from "../care/surfaces/rule-words/draft-from-words.router";
import { catalogRouter } from "../care/core/language/catalog/catalog.router";
import { llmRouter } from "../care/services/llm/llm.router";
import { runsRouter } from "../care/core/pipeline/runs/runs.router";
import { sensorsRouter } from "../household/sensors/sensors.router";
import { webhookTriggerRouter, webhooksRouter } from "../care/core/pipeline/triggers/webhooks.router";
import { interactiveRouter } from "../care/services/interactive/interactive.router";
import { chatWebhookRouter } from "../care/services/chat/chat-webhook.router";
import { chatRelativesRouter } from "../care/services/chat/relatives.router";
import type { ChatLink } from "../care/services/chat/chat.service";
import { mediaRouter } from "../household/media/media.router";
import { documentsRouter } from "../care/services/knowledge/documents/documents.router";
import { knowledgeQueryRouter } from "../care/services/knowledge/knowledge-query.router";
import { knowledgeAuthoringRouters } from "../care/services/knowledge/authoring.routers";
import { interactionsRouter } from "../care/services/knowledge/delivery";
import { recordDeviceContact } from "./ops/health-parts";
import { auditChanges } from "./audit/audit-changes";
import { notFoundHandler } from "../platform/http/error-handler";
import { jsonBody, queryGuard } from "../platform/http/json-body";

/** Routers of later capabilities join here; each is `(ctx) => Router`. */
export type RouterFactory = (ctx: AppContext) => Router;

export const V1_ROUTERS: readonly RouterFactory[] = [
  // Before the rooms and sensors routers: a room or sensor a rule uses is not deleted.
  inUseRouter,
  roomsRouter,
  sensorsRouter,
  trackingRouter,
  ctsRouter,
  // Before the persons router: `/persons/enrolled` is not a person's id.
  identityRouter,
  personsRouter,
  alertsRouter,
  activitiesRouter,
  eventLogsRouter,
  adminConfigRouter,
  keysRouter,
  backupsRouter,
  starterRulesRouter,
  bundlesRouter,
  draftFromWordsRouter,
  rulesRouter,
  rehearseRouter,
  catalogRouter,
  llmRouter,
  runsRouter,
  einkRouter,
  webhooksRouter,
  interactiveRouter,
  documentsRouter,
  knowledgeQueryRouter,
  ...knowledgeAuthoringRouters,
  interactionsRouter,
];

/** The parts of the app the routers outside V1_ROUTERS are given. */
export interface ApiParts {
  /** The family chat: its webhook, its bot's status and its test message. */
  chat: ChatLink;
}

export function apiV1(ctx: AppContext, throttle: FailureThrottle, parts: ApiParts, extra: readonly RouterFactory[] = []): Router {
  const r = Router();
  // An e-ink display may only be able to send its key in an Authorization header.
  r.get("/image/active", authenticate(ctx.keys, throttle, "bare-or-bearer"), queryGuard);
  // A webhook call is authenticated by its rule's X-Webhook-Secret, not an API key.
  r.use(webhookTriggerRouter(ctx));
  // The chat service's webhook (webhook mode) is authenticated by its secret token.
  r.use(chatWebhookRouter(ctx, parts.chat));
  // A media URL's signature is its credential: a speaker or a chat server fetches it keyless.
  r.use(mediaRouter(ctx));
  // Who changed what (people, rooms, devices, rules, knowledge) goes to the audit log.
  r.use(authenticate(ctx.keys, throttle), recordDeviceContact(ctx), auditChanges(ctx), jsonBody(), queryGuard);
  for (const make of [...V1_ROUTERS, (c: AppContext) => chatRelativesRouter(c, parts.chat), ...extra]) r.use(make(ctx));
  r.use(notFoundHandler);
  return r;
}
