/**
 * The channel layer: hands a notification to each channel's handler and collects one
 * receipt per channel. A channel never fails silently: no handler yet, bad options, a
 * handler that throws, each becomes a receipt with `delivered: false` and a reason, which
 * the step keeps in its record and turns into a warning on the step and its run.
 */
import type { CareServices } from "../../../../nodes/_kit/care-services";
import type { ChannelHandler, ChannelMessage, DeliveryReceipt, HandlerContext } from "../../../../nodes/_kit/handler-types";
import type { ChannelOptions, ChannelSpec, NotificationSettings } from "../../../../nodes/_kit/types";
import type { NotificationPlan } from "./plan";

export { deliveredByChannel, deliveryWarning } from "../../../../nodes/_kit/receipts";

export interface ChannelEntry {
  spec: ChannelSpec;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- handlers of every config type
  handler?: ChannelHandler<any, CareServices>;
}

export type ChannelLookup = (type: string) => ChannelEntry | undefined;

/** The channel types a send may use (`./channels.ts` has the registry's), and the step options they read. */
export interface Channels {
  find: ChannelLookup;
  optionKeys: readonly string[];
}

/** The alert a send belongs to and which send of it this is (0 first, n the n-th re-send). */
export interface AlertRef {
  id: number;
  escalation: number;
}

/** What every channel of one send is given. */
export interface ChannelSend {
  hctx: HandlerContext<CareServices>;
  notifications: NotificationSettings;
}

/** A channel's config from the step's options and the settings, as the channel's spec says; the spec's schema fills defaults. */
export const channelConfig = (spec: ChannelSpec, options: ChannelOptions, notifications: NotificationSettings): Record<string, unknown> =>
  spec.configFrom ? spec.configFrom(options, notifications) : {};

const notDelivered = (channel: string, detail: string): DeliveryReceipt => ({ channel, delivered: false, detail });

async function deliverOne(
  send: ChannelSend,
  channel: string,
  plan: NotificationPlan,
  pipelineData: Record<string, unknown>,
  lookup: ChannelLookup,
  idempotencyKey: string | null,
  alert: AlertRef | null,
): Promise<DeliveryReceipt> {
  const entry = lookup(channel);
  if (!entry) return notDelivered(channel, `unknown channel '${channel}'`);
  if (!entry.handler) return notDelivered(channel, `cannot deliver yet: it needs ${entry.spec.pending ?? "a handler"}`);
  const parsed = entry.spec.config.safeParse(channelConfig(entry.spec, plan.options, send.notifications));
  if (!parsed.success) {
    return notDelivered(channel, `its options are invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}`);
  }
  const message: ChannelMessage = {
    alert_level: plan.alert_level,
    message: plan.messages[channel] ?? "",
    room_name: plan.room_name,
    image_url: plan.image_url,
    pipeline_data: pipelineData,
    execution_id: plan.execution_id,
    idempotency_key: idempotencyKey,
    alert_id: alert?.id ?? null,
    escalation: alert?.escalation ?? 0,
    media_paths: plan.media_paths ?? [],
    reply_chat_id: plan.reply_chat_id ?? null,
  };
  try {
    const receipt = await entry.handler(send.hctx, message, parsed.data);
    return { ...receipt, channel };
  } catch (err) {
    return notDelivered(channel, `failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Sends through every channel of the plan at once; receipts come back in the plan's channel order. */
export async function dispatch(
  send: ChannelSend,
  plan: NotificationPlan,
  pipelineData: Record<string, unknown>,
  lookup: ChannelLookup,
  /** One per step activation or escalation repetition: a repeat of the same send carries the same key. */
  idempotencyKey: string | null = null,
  /** The alert being sent (first send or a re-send), when the level raises one. */
  alert: AlertRef | null = null,
): Promise<DeliveryReceipt[]> {
  const receipts = await Promise.all(plan.channels.map((c) => deliverOne(send, c, plan, pipelineData, lookup, idempotencyKey, alert)));
  // Per channel at debug: the run (or the escalation) says it once when a send reached nobody.
  for (const r of receipts)
    send.hctx.log.debug(
      { channel: r.channel, alert_level: plan.alert_level, execution_id: plan.execution_id, delivered: r.delivered, detail: r.detail },
      "notification receipt",
    );
  return receipts;
}
