import type { z } from "zod";
import type { ChannelHandler, ChannelMessage } from "../../_kit/handler-types";
import type { spec } from "./webhook.node";

type Config = z.output<typeof spec.config>;

const RESPONSE_EXCERPT = 200;

/** The rendered `webhook_template` when it parses as JSON, else the standard body. */
export function webhookBody(message: ChannelMessage): unknown {
  const text = message.message.trim();
  if (text.startsWith("{") || text.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON: sent as the message of the standard body
    }
  }
  return { message: message.message, alert_level: message.alert_level, room: message.room_name, image_url: message.image_url };
}

/**
 * POSTs the notification as JSON to the step's `webhook_url`, else `notifications.webhook.url`,
 * with the configured headers (e.g. `Authorization: Bearer ...`) and an `Idempotency-Key`
 * that is the same for a repeat of the same send (one step activation, one escalation
 * repetition), so a receiver can drop a duplicate. A 2xx is delivered;
 * another status, a timeout or a refused connection is not, with the reason.
 */
export const handler: ChannelHandler<Config> = async (ctx, message, config) => {
  if (!config.url) {
    return { channel: "webhook", delivered: false, detail: "no webhook address is set up, neither on the step nor in the household's notification settings" };
  }
  const timeout = AbortSignal.timeout(config.timeout_seconds * 1000);
  const signal = AbortSignal.any([timeout, ctx.signal]);
  const target = redactedUrl(config.url);
  try {
    const res = await fetch(config.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...config.headers, ...(message.idempotency_key ? { "idempotency-key": message.idempotency_key } : {}) },
      body: JSON.stringify(webhookBody(message)),
      signal,
      redirect: "manual",
    });
    const text = await res.text().catch(() => "");
    if (res.status >= 200 && res.status < 300) return { channel: "webhook", delivered: true, detail: `${target} answered ${res.status}` };
    return { channel: "webhook", delivered: false, detail: `${target} answered ${res.status}${text ? `: ${text.slice(0, RESPONSE_EXCERPT)}` : ""}` };
  } catch (err) {
    if (timeout.aborted) return { channel: "webhook", delivered: false, detail: `${target} did not answer within ${config.timeout_seconds} s` };
    if (ctx.signal.aborted) return { channel: "webhook", delivered: false, detail: `${target}: the send was cancelled` };
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return { channel: "webhook", delivered: false, detail: `${target} unreachable: ${err instanceof Error ? err.message : String(err)}${cause}` };
  }
};

/** The URL without credentials or query, for receipts and logs (a token may sit in either). */
function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "the webhook URL";
  }
}
