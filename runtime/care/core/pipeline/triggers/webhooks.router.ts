/**
 * Webhook triggers. `POST /webhooks/{rule_id}` is authenticated by the rule's secret in
 * `X-Webhook-Secret`, not by an API key, so `api-v1.ts` mounts `webhookTriggerRouter`
 * before its API-key middleware; `POST /webhooks/{rule_id}/generate-secret` is an ordinary
 * admin route behind the key (`webhooksRouter`, in `V1_ROUTERS`).
 *
 * Answers: no secret 401; unknown rule or wrong secret (or none generated yet) 403, the
 * same answer, so rule ids cannot be listed without a secret; the body is read only once
 * the secret matched (1 MB, no NUL, bounded depth; not a JSON object 422); rule not a
 * webhook rule or disabled 409; engine not running 503; otherwise 200
 * `{"execution_id": n}` or `{"execution_id": null, "reason": "..."}` when the gates held
 * the rule.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { Router, type NextFunction, type Request, type Response } from "express";
import type { CareContext } from "../../context";
import { ConflictError, ForbiddenError, NotFoundError, ServiceUnavailableError, UnauthorizedError, ValidationError } from "../../../../platform/core/errors";
import { positiveIntOrNull } from "../../../../platform/core/validation";
import { intParam } from "../../../../platform/http/params";
import { jsonBody } from "../../../../platform/http/json-body";
import { route } from "../../../../platform/http/route";
import { findRule, storedWebhookSecret } from "../../rules/rule-read";
import { ruleView, type RuleNodes } from "../../rules/rule-model";
import { generateWebhookSecret } from "../../rules/rules.service";
import { triggerContext, type FireResult } from "../engine/types";
import { sensorRoom } from "./trigger-kit";

const digest = (s: string): Buffer => createHash("sha256").update(s, "utf8").digest();

/** Constant time in the secret's content and length: both sides are hashed to 32 bytes first. */
export function secretMatches(given: string, expected: string | null): boolean {
  const ok = timingSafeEqual(digest(given), digest(expected ?? ""));
  return ok && expected !== null && expected !== "";
}

function payloadOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new ValidationError("body: must be a JSON object");
  return body as Record<string, unknown>;
}

declare module "express-serve-static-core" {
  interface Request {
    webhookRule?: RuleNodes;
  }
}

/** Finds the rule and checks the secret before a byte of the body is read. */
async function checkSecret(ctx: CareContext, req: Request): Promise<void> {
  const given = req.get("x-webhook-secret");
  if (!given) throw new UnauthorizedError("Webhook secret required: send it in X-Webhook-Secret");
  const id = positiveIntOrNull(req.params.rule_id ?? "");
  const { flows, index } = await ctx.flows.snapshot();
  let found: RuleNodes | null = null;
  if (id !== null) {
    try {
      found = findRule(flows, index, id);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  const stored = found ? await storedWebhookSecret(ctx, found.row.id) : null;
  // An unknown rule is compared like a wrong secret: same time, same answer.
  if (!secretMatches(given, stored) || !found) throw new ForbiddenError("Webhook secret does not match");
  req.webhookRule = found;
}

async function triggerWebhook(ctx: CareContext, req: Request): Promise<FireResult> {
  const r = req.webhookRule!;
  const id = r.row.id;
  const payload = payloadOf(req);
  const rule = ruleView(r, false);
  if (rule.trigger_type !== "webhook") throw new ConflictError(`Rule ${id} is not a webhook rule (trigger_type '${rule.trigger_type}')`);
  if (!rule.enabled) throw new ConflictError(`Rule ${id} is disabled`);
  ctx.bus.publish("webhook.called", { rule_id: id, payload: structuredClone(payload) });
  if (!ctx.firer) throw new ServiceUnavailableError("The rules engine is not running");
  const trigger = triggerContext({
    trigger_type: "webhook",
    sensor_id: rule.primary_sensor_id,
    room_name: await sensorRoom(ctx, rule.primary_sensor_id),
    webhook_payload: payload,
  });
  const result = await ctx.firer.fire({ rule_id: id, trigger, trigger_input: structuredClone(payload) });
  if (result.execution_id !== null) await ctx.engine?.store.whenWritten(result.execution_id).catch(() => undefined);
  return result.execution_id === null ? { execution_id: null, reason: result.reason } : { execution_id: result.execution_id };
}

/** `POST /webhooks/:rule_id`, mounted before API-key authentication. */
export function webhookTriggerRouter(ctx: CareContext): Router {
  const r = Router();
  const gate = (req: Request, _res: Response, next: NextFunction) => void checkSecret(ctx, req).then(() => next(), next);
  r.post(
    "/webhooks/:rule_id",
    gate,
    jsonBody(),
    route((req) => triggerWebhook(ctx, req)),
  );
  return r;
}

/** `POST /webhooks/:rule_id/generate-secret`, behind the API key (admin by the role patterns). */
export function webhooksRouter(ctx: CareContext): Router {
  const r = Router();
  r.post(
    "/webhooks/:rule_id/generate-secret",
    route((req) => generateWebhookSecret(ctx, intParam(req, "rule_id", "Rule"))),
  );
  return r;
}
