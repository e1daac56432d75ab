/**
 * The fallback (issue 44 §2, "silence is never mistaken for safety"): when every channel of a
 * send failed, the message goes out on the next route that works, in
 * `notifications.fallback.order` (chat → hub notify → webhook → the household's screens and
 * speakers), skipping the routes the send already tried and those not set up, until one
 * delivers. The family's routes are always candidates; the senior's own screens and speakers
 * only when the send itself was for the home (one of its channels is a screen or speaker there)
 * and its level's default channels include them, since a message for the family read out in her kitchen tells the wrong person. The parts that failed are marked on the parts
 * board. Receipts of the fallback carry `fallback: true`, so the step's warning and the
 * alert's history say which route carried it and why.
 */
import type { CareContext } from "../../core/context";
import type { DeliveryReceipt } from "../../../../nodes/_kit/handler-types";
import { dispatch, type AlertRef, type ChannelLookup, type ChannelSend } from "./dispatch";
import { levelPlan } from "../../core/language/alert-levels";
import { channelName, channelWords } from "../../core/language/channel-names";
import { partOf, routeConfigured } from "./route-setup";
import { HUB_NOTIFY } from "../../core/language/channel-names";
import type { NotificationPlan } from "./plan";

/** Routes that reach the family wherever they are; the others reach whoever is at home. */
const FAMILY_ROUTES: ReadonlySet<string> = new Set(["chat_app", HUB_NOTIFY, "webhook"]);

/** The routes this send may fall back on, in order. */
async function candidates(ctx: CareContext, plan: NotificationPlan, tried: readonly DeliveryReceipt[]): Promise<string[]> {
  const done = new Set(tried.map((r) => r.channel));
  // Whoever the send was for: a message sent only to the family's routes (a caregiver's choice,
  // or the level's) never moves onto the senior's own screens and speakers.
  // A send for the home moves only onto the home's routes its level has by default.
  const meantForHome = plan.channels.some((c) => !FAMILY_ROUTES.has(c));
  const levelDefaults = new Set(levelPlan(ctx.settings, plan.alert_level).channels);
  const out: string[] = [];
  for (const route of ctx.settings.notifications.fallback.order) {
    if (done.has(route) || out.includes(route)) continue;
    if (!FAMILY_ROUTES.has(route) && !(meantForHome && levelDefaults.has(route))) continue;
    if (await routeConfigured(ctx, plan, route)) out.push(route);
  }
  return out;
}

/** The message a route carries: its own rendering, else the first channel's; to the family with why it came this way. */
function fallbackText(plan: NotificationPlan, route: string, failed: readonly DeliveryReceipt[]): string {
  const base = plan.messages[route] ?? plan.messages[failed[0]?.channel ?? ""] ?? Object.values(plan.messages)[0] ?? plan.alert_level;
  if (!FAMILY_ROUTES.has(route)) return base;
  const names = failed.map((r) => `the ${channelWords(r.channel)}`).join(", ");
  return `${base}\n(Sent here because ${names} failed.)`;
}

async function sendHubNotify(ctx: CareContext, send: ChannelSend, plan: NotificationPlan, message: string): Promise<DeliveryReceipt> {
  const service = ctx.settings.notifications.fallback.hub_notify_service ?? "";
  const answer = await send.hctx.services.hub.call(
    { domain: "notify", service: service.replace(/^notify\./, ""), entity_id: null, data: { title: `careflow ${plan.alert_level}`, message } },
    send.hctx.signal,
  );
  return answer.ok ? { channel: HUB_NOTIFY, delivered: true, detail: `sent to ${service}` } : { channel: HUB_NOTIFY, delivered: false, detail: answer.reason };
}

/**
 * Marks the parts of a send's routes: a delivery is a sign of life; a route that was set up and
 * failed is down now, with the receipt's reason (for a watched part, only when its watcher found
 * it unreachable: route-setup.ts).
 */
export async function markParts(ctx: CareContext, plan: NotificationPlan, receipts: readonly DeliveryReceipt[]): Promise<void> {
  if (!ctx.parts) return;
  for (const r of receipts) {
    const part = partOf(r.channel);
    if (!part) continue;
    if (r.delivered) ctx.parts.report(part.id, true);
    else if (part.watched && ctx.parts.isUp(part.id) !== false) continue;
    else if (await routeConfigured(ctx, plan, r.channel)) ctx.parts.failed(part.id, `${channelName(r.channel)}: ${r.detail ?? "not delivered"}`);
  }
}

/**
 * When no receipt of `tried` delivered: the fallback routes one after another until one
 * delivers. Returns their receipts (none when something was delivered, or nothing was tried).
 */
export async function fallBack(
  ctx: CareContext,
  send: ChannelSend,
  plan: NotificationPlan,
  tried: readonly DeliveryReceipt[],
  lookup: ChannelLookup,
  idempotencyKey: string | null,
  alert: AlertRef | null,
): Promise<DeliveryReceipt[]> {
  if (!tried.length || tried.some((r) => r.delivered)) return [];
  const out: DeliveryReceipt[] = [];
  // A route through a part that just failed this send (the popup after the voice companion, both the tablet) would fail alike.
  const failedParts = new Set(tried.map((r) => partOf(r.channel)?.id));
  for (const route of await candidates(ctx, plan, tried)) {
    if (send.hctx.signal.aborted) break;
    const part = partOf(route)?.id;
    if (part && failedParts.has(part)) continue;
    const message = fallbackText(plan, route, tried);
    const receipt =
      route === HUB_NOTIFY
        ? await sendHubNotify(ctx, send, plan, message)
        : (
            await dispatch(
              send,
              { ...plan, channels: [route], messages: { ...plan.messages, [route]: message } },
              {},
              lookup,
              idempotencyKey && `${idempotencyKey}:fallback`,
              alert,
            )
          )[0];
    out.push({ ...receipt, fallback: true });
    if (receipt.delivered) break;
    failedParts.add(part);
  }
  // Info: the run (or the escalation) warns once; this says which routes were tried.
  if (out.length)
    ctx.log.info({ execution_id: plan.execution_id, alert_id: alert?.id, tried: tried.map((r) => r.channel), fallback: out }, "notification fell back");
  return out;
}
