/**
 * The channel layer: hands a notification to each channel's handler and collects one
 * receipt per channel. A channel never fails silently: no handler yet, bad options, a
 * handler that throws, each becomes a receipt with `delivered: false` and a reason, which
 * the step keeps in its record and turns into a warning on the step and its run.
 */
import type { ChannelHandler, ChannelMessage, DeliveryReceipt, HandlerContext } from "../../nodes/_kit/handler-types";
import type { ChannelSpec } from "../../nodes/_kit/types";
import { registry } from "../../nodes/registry.generated";
import type { Settings } from "../../settings";
import type { AppContext } from "../context";
import type { ChannelOptions, NotificationPlan } from "./plan";

export interface ChannelEntry {
  spec: ChannelSpec;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- handlers of every config type
  handler?: ChannelHandler<any, AppContext>;
}

export type ChannelLookup = (type: string) => ChannelEntry | undefined;

// Read at call time: the registry imports the notification handler, which imports this.
export const registeredChannel: ChannelLookup = (type) => registry.channels.find((e) => e.spec.type === type);

/** A channel's config from the step's options and the settings; the channel's spec fills defaults. */
export function channelConfig(channel: string, options: ChannelOptions, settings: Settings): Record<string, unknown> {
  const n = settings.notifications;
  switch (channel) {
    case "webhook":
      return { url: options.webhook_url ?? n.webhook.url ?? undefined, timeout_seconds: n.webhook.timeout_seconds, headers: n.webhook.headers };
    case "eink":
      return { targets: options.eink_targets ?? [], template_id: options.eink_template_id, expiry_minutes: options.eink_expiry_minutes ?? n.eink.default_expiry_minutes };
    default:
      return {};
  }
}

const notDelivered = (channel: string, detail: string): DeliveryReceipt => ({ channel, delivered: false, detail });

async function deliverOne(hctx: HandlerContext<AppContext>, channel: string, plan: NotificationPlan, pipelineData: Record<string, unknown>, lookup: ChannelLookup, idempotencyKey: string | null): Promise<DeliveryReceipt> {
  const entry = lookup(channel);
  if (!entry) return notDelivered(channel, `unknown channel '${channel}'`);
  if (!entry.handler) return notDelivered(channel, `channel ${channel} cannot deliver yet: it needs ${entry.spec.pending ?? "a handler"}`);
  const parsed = entry.spec.config.safeParse(channelConfig(channel, plan.options, hctx.services.settings));
  if (!parsed.success) {
    return notDelivered(channel, `channel ${channel} options are invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`);
  }
  const message: ChannelMessage = {
    alert_level: plan.alert_level,
    message: plan.messages[channel] ?? "",
    room_name: plan.room_name,
    image_url: plan.image_url,
    pipeline_data: pipelineData,
    execution_id: plan.execution_id,
    idempotency_key: idempotencyKey,
  };
  try {
    const receipt = await entry.handler(hctx, message, parsed.data);
    return { ...receipt, channel };
  } catch (err) {
    return notDelivered(channel, `channel ${channel} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Sends through every channel of the plan at once; receipts come back in the plan's channel order. */
export async function dispatch(
  hctx: HandlerContext<AppContext>,
  plan: NotificationPlan,
  pipelineData: Record<string, unknown> = {},
  lookup: ChannelLookup = registeredChannel,
  /** One per step activation or escalation repetition: a repeat of the same send carries the same key. */
  idempotencyKey: string | null = null,
): Promise<DeliveryReceipt[]> {
  const receipts = await Promise.all(plan.channels.map((c) => deliverOne(hctx, c, plan, pipelineData, lookup, idempotencyKey)));
  // Per channel at debug: the run (or the escalation) says it once when a send reached nobody.
  for (const r of receipts) hctx.log.debug({ channel: r.channel, alert_level: plan.alert_level, execution_id: plan.execution_id, delivered: r.delivered, detail: r.detail }, "notification receipt");
  return receipts;
}

/** The warning a send deserves: none when every channel delivered. */
export function deliveryWarning(receipts: readonly DeliveryReceipt[]): string | undefined {
  const failed = receipts.filter((r) => !r.delivered);
  if (!failed.length) return undefined;
  const why = failed.map((r) => `${r.channel}: ${r.detail ?? "not delivered"}`).join("; ");
  return receipts.some((r) => r.delivered) ? `not delivered by every channel (${why})` : `reached nobody (${why})`;
}

/** `{channel: delivered}` for the step's `notification_channels` output. */
export const deliveredByChannel = (receipts: readonly DeliveryReceipt[]): Record<string, boolean> =>
  Object.fromEntries(receipts.map((r) => [r.channel, r.delivered]));

/** A handler context for sends outside a step (escalation re-sends). */
export function serviceContext(ctx: AppContext, signal: AbortSignal = new AbortController().signal): HandlerContext<AppContext> {
  return { clock: ctx.clock, log: ctx.log, services: ctx, signal };
}
