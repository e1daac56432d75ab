/**
 * A notification step's send: which channels, what each says, the dispatch, and, for a
 * warning or an emergency, the alert record that carries its escalation.
 */
import type { CareServices } from "../../../../nodes/_kit/care-services";
import type { NotificationRequest } from "../../../../vocabulary/notifications";
import type { DeliveryReceipt, HandlerContext, StepInput } from "../../../../nodes/_kit/handler-types";
import { createAlert, recordAlertHistory, storeAlertNotification, type Alert } from "../../../household/alerts/alerts.service";
import type { CareContext } from "../../core/context";
import { toJsonText } from "../../../platform/db/json-column";
import { dispatch, type Channels } from "./dispatch";
import { fallBack, markParts } from "./fallback";
import { escalationPlan, levelPlan, RAISES_ALERT } from "../../core/language/alert-levels";
import { channelMessages } from "./messages";
import type { NotificationPlan } from "./plan";
import { withChatTargets } from "../chat/relatives.service";

/** The notification step's config as this layer reads it. */
export type NotificationConfig = NotificationRequest;

export interface NotificationOutcome {
  plan: NotificationPlan;
  receipts: DeliveryReceipt[];
  alert: Alert | null;
}

const ALERT_TYPE_MAX = 100;

/** What to say when nothing renders: the level and the step's label, never a blank popup. */
const fallbackMessage = (level: string, label: string): string => `${level[0]?.toUpperCase() ?? ""}${level.slice(1)}: ${label}`;

/** The chat a chat command came from (a `chat_app` trigger's `chat_id`). */
const askingChatOf = (trigger: StepInput["trigger"]): string | null => {
  const chatId = trigger.trigger_type === "chat_app" ? trigger.webhook_payload?.chat_id : undefined;
  return typeof chatId === "string" || typeof chatId === "number" ? String(chatId) : null;
};

const imageUrlOf = (data: Record<string, unknown>): string | null => (typeof data.image_url === "string" && data.image_url !== "" ? data.image_url : null);

export function buildPlan(ctx: CareContext, input: StepInput, config: NotificationConfig, optionKeys: readonly string[]): NotificationPlan {
  const level = levelPlan(ctx.settings, config.alert_level);
  const channels = [...new Set(config.channels ?? level.channels)];
  const options = Object.fromEntries(optionKeys.map((k) => [k, config[k]]));
  return {
    alert_level: config.alert_level,
    channels,
    messages: channelMessages(channels, config, input.pipeline_data, fallbackMessage(config.alert_level, input.step.label)),
    room_name: input.trigger.room_name,
    image_url: imageUrlOf(input.pipeline_data),
    media_paths: [...(input.trigger.media_paths ?? [])],
    execution_id: input.execution_id,
    reply_chat_id: askingChatOf(input.trigger),
    options: JSON.parse(JSON.stringify(options)) as NotificationPlan["options"],
    escalation: RAISES_ALERT.has(config.alert_level) ? escalationPlan(level) : null,
  };
}

/** The alert's description: the message a person reads first (the popup's, else any channel's). */
const alertDescription = (plan: NotificationPlan): string =>
  plan.messages.pwa_popup_text ?? Object.values(plan.messages)[0] ?? fallbackMessage(plan.alert_level, "notification");

export async function raiseAlert(ctx: CareContext, input: StepInput, plan: NotificationPlan): Promise<Alert> {
  const nextAt = plan.escalation ? new Date(ctx.clock.now() + plan.escalation.interval_minutes * 60_000).toISOString() : null;
  const alert = await createAlert(ctx, {
    alert_type: input.step.label.slice(0, ALERT_TYPE_MAX) || "notification",
    level: plan.alert_level,
    description: alertDescription(plan),
    room_name: plan.room_name,
    sensor_id: input.trigger.sensor_id,
    rule_id: input.rule_id,
    execution_id: input.execution_id,
    image_url: plan.image_url,
    next_escalation_at: nextAt,
    idempotency_key: input.idempotency_key,
  });
  await storeAlertNotification(ctx, alert.id, toJsonText(plan));
  return alert;
}

/**
 * One history line per channel of a send of an alert (fallback routes too, said so): delivered
 * or failed, with the receipt's reason; then `alert.sent` on the bus (the alert loop's latency, docs/metrics.md).
 */
export async function recordReceipts(ctx: CareContext, alertId: number, escalation: number, receipts: DeliveryReceipt[]): Promise<void> {
  await recordAlertHistory(
    ctx,
    alertId,
    receipts.map((r) => ({
      event: r.delivered ? "delivered" : "failed",
      channel: r.channel,
      escalation,
      detail: r.fallback ? `fallback: ${r.detail ?? ""}` : r.detail,
    })),
  );
  ctx.bus.publish("alert.sent", { alert_id: alertId, escalation, delivered: receipts.some((r) => r.delivered) });
}

/**
 * Raises the alert (warning, emergency), then sends; when every channel failed, the fallback
 * routes are tried (./fallback.ts) and the parts that failed are marked. The alert is recorded first and
 * whatever the receipts say: a warning that reached no one, or whose send was cut short by
 * the step timeout, is exactly the one a caregiver must find in the list, and its
 * escalation tries again.
 */
export async function sendNotification(
  ctx: CareContext,
  hctx: HandlerContext<CareServices>,
  input: StepInput,
  config: NotificationConfig,
  channels: Channels,
): Promise<NotificationOutcome> {
  const plan = buildPlan(ctx, input, config, channels.optionKeys);
  const alert = RAISES_ALERT.has(plan.alert_level) ? await raiseAlert(ctx, input, plan) : null;
  const send = { hctx, notifications: await withChatTargets(ctx, ctx.settings.notifications) };
  const ref = alert ? { id: alert.id, escalation: 0 } : null;
  const own = await dispatch(send, plan, input.pipeline_data, channels.find, input.idempotency_key, ref);
  const receipts = [...own, ...(await fallBack(ctx, send, plan, own, channels.find, input.idempotency_key, ref))];
  await markParts(ctx, plan, receipts);
  if (alert) await recordReceipts(ctx, alert.id, 0, receipts);
  return { plan, receipts, alert };
}
