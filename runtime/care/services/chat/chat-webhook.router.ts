/**
 * `POST /api/v1/chat/webhook`: the chat service's updates in webhook mode
 * (`notifications.chat_app.mode: webhook`). Mounted before the API-key check: the chat service
 * authenticates with `X-Telegram-Bot-Api-Secret-Token`, which must equal
 * `notifications.chat_app.webhook_secret` (compared in constant time). No secret sent 401; a
 * wrong one, or none configured, 403; not in webhook mode 409; otherwise 200 `{}` once the
 * update was handled (the chat service re-sends an update it got no 2xx for).
 */
import { Router, type NextFunction, type Request, type Response } from "express";
import type { Update } from "grammy/types";
import type { CareContext } from "../../core/context";
import { ConflictError, ForbiddenError, ServiceUnavailableError, UnauthorizedError, ValidationError } from "../../../platform/core/errors";
import { jsonBody } from "../../../platform/http/json-body";
import { route } from "../../../platform/http/route";
import { secretMatches } from "../../core/pipeline/triggers/webhooks.router";
import type { ChatLink } from "./chat.service";

function checkSecret(ctx: CareContext, req: Request): void {
  const given = req.get("x-telegram-bot-api-secret-token");
  if (!given) throw new UnauthorizedError("Chat webhook secret required: X-Telegram-Bot-Api-Secret-Token");
  if (!secretMatches(given, ctx.settings.notifications.chat_app.webhook_secret)) throw new ForbiddenError("Chat webhook secret does not match");
}

export function chatWebhookRouter(ctx: CareContext, chat: ChatLink): Router {
  const r = Router();
  const gate = (req: Request, _res: Response, next: NextFunction) => {
    try {
      checkSecret(ctx, req);
      next();
    } catch (err) {
      next(err);
    }
  };
  r.post(
    "/chat/webhook",
    gate,
    jsonBody(),
    route(async (req) => {
      if (ctx.settings.notifications.chat_app.mode !== "webhook") throw new ConflictError("The chat app is not in webhook mode");
      if (!chat.client) throw new ServiceUnavailableError("The chat app is not started");
      const body: unknown = req.body;
      if (!body || typeof body !== "object" || typeof (body as { update_id?: unknown }).update_id !== "number") {
        throw new ValidationError("body: not a chat update (update_id missing)");
      }
      await chat.handleUpdate(body as Update);
      return {};
    }),
  );
  return r;
}
