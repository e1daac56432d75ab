/**
 * Info cards put before the senior by the `info_card` step: on the web app (a card with its
 * pictures and a button to put it away), on the e-ink displays (card-eink.ts) and spoken by
 * the voice companion. Each delivery is recorded with a receipt per channel (delivered, or
 * why not), then when a screen showed it (viewed_at) and when the senior put it away
 * (dismissed_at). A tablet that connects later is shown the cards not yet put away.
 */
import { deliveryInstruction } from "../voice/voice-defaults";
import { NO_WEB_APP } from "../../../../../vocabulary/tablet";
import { NO_VOICE_MODEL } from "../../../../../vocabulary/voice";
import type { CardDelivered, CardDeliveryRequest } from "../../../../../vocabulary/knowledge";
import type { DeliveryReceipt } from "../../../../../vocabulary/notifications";
import { screens } from "../../../../../nodes/_kit/words";
import type { CareContext } from "../../../core/context";
import { isoAt, isoNow } from "../../../../platform/core/clock";
import { NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { realtimeConfigured } from "../../llm/realtime-client";
import { seniorWords } from "../../../../household/persons/senior-language";
import { cardForDelivery } from "../cards/card-delivery.read";
import type { DeliverableCard } from "../deliverable";
import { showCardOnDisplays } from "./card-eink";
import {
  deliveryById,
  insertDelivery,
  markDismissed,
  markViewed,
  saveReceipt,
  undismissedSince,
  type CardChannel,
  type ChannelReceipt,
  type DeliveryRow,
} from "./card-deliveries.store";
import { imageUrl } from "./quiz-view";

/** How long a card not put away is shown again to a tablet that connects. */
export const CARD_REPLAY_HOURS = 24;

export interface CardFrame {
  [k: string]: unknown;
  type: "info_card";
  delivery_id: number;
  card: {
    id: number;
    layout_id: string;
    title: string;
    body_text: string;
    images: Array<{ url: string; alt_text: string; slot_index: number }>;
  };
}

export async function cardFrame(ctx: CareContext, deliveryId: number, card: DeliverableCard): Promise<CardFrame> {
  const images: CardFrame["card"]["images"] = [];
  for (const slot of card.slots) {
    const url = await imageUrl(ctx, { ...slot, variants: slot.variants.filter((v) => v.surface === "pwa") });
    if (url) images.push({ url, alt_text: slot.alt_text, slot_index: slot.slot_index });
  }
  return { type: "info_card", delivery_id: deliveryId, card: { id: card.id, layout_id: card.layout_id, title: card.title, body_text: card.body_text, images } };
}

export async function deliverCard(ctx: CareContext, req: CardDeliveryRequest, signal?: AbortSignal): Promise<CardDelivered> {
  const card = await cardForDelivery(ctx.db, req.card_id);
  if (!card) throw new ValidationError(`card_id: card ${req.card_id} not found`);
  if (card.status !== "approved") throw new ValidationError(`card_id: card ${req.card_id} is ${card.status}; only an approved card is shown to the senior`);
  const channels = [...new Set(req.channels)];
  const id = await insertDelivery(ctx.db, {
    info_card_id: card.id,
    rule_id: req.rule_id,
    execution_id: req.execution_id,
    step_id: req.step_id,
    channels,
    delivered_at: isoNow(ctx.clock),
  });
  const receipt: Partial<Record<CardChannel, ChannelReceipt>> = {};
  for (const channel of channels) {
    try {
      receipt[channel] = await deliverOn(ctx, channel, id, card, req, signal);
    } catch (err) {
      receipt[channel] = { delivered: false, detail: err instanceof Error ? err.message : String(err) };
    }
  }
  await saveReceipt(ctx.db, id, receipt);
  ctx.log.info({ delivery_id: id, card_id: card.id, receipt }, "info card delivered");
  const receipts: DeliveryReceipt[] = channels.map((c) => ({ channel: c, delivered: receipt[c]!.delivered, detail: receipt[c]!.detail }));
  return { delivery_id: id, card_title: card.title, receipts };
}

async function deliverOn(
  ctx: CareContext,
  channel: CardChannel,
  id: number,
  card: DeliverableCard,
  req: CardDeliveryRequest,
  signal?: AbortSignal,
): Promise<ChannelReceipt> {
  switch (channel) {
    case "pwa": {
      const clients = ctx.webapp.broadcast(await cardFrame(ctx, id, card));
      return clients > 0
        ? { delivered: true, detail: `shown on ${screens(clients)}` }
        : { delivered: false, detail: `${NO_WEB_APP}; shown when one connects, until it is put away` };
    }
    case "eink": {
      const shown = await showCardOnDisplays(ctx, card, req.eink_targets, req.eink_expiry_minutes);
      if (shown.sensor_ids.length === 0) return { delivered: false, detail: "no e-ink display to show it on" };
      return { delivered: true, detail: `shown on ${shown.sensor_ids.join(", ")} until ${shown.expires_at}${shown.with_picture ? " with its picture" : ""}` };
    }
    case "voice": {
      if (!realtimeConfigured(ctx.settings)) return { delivered: false, detail: NO_VOICE_MODEL };
      if (!ctx.voice) return { delivered: false, detail: "the voice companion is not started" };
      // Step override, else the card's own, else info_card_default; the companion adds the base.
      const instruction = deliveryInstruction(ctx.settings, "info_card", req.voice_instruction, card.voice_instruction, await seniorWords(ctx));
      const talking = await ctx.voice.start({ reason: "notification", text: `${card.title}. ${card.body_text}`, instruction }, signal);
      return talking.ok
        ? { delivered: true, detail: `spoken by the voice companion (${talking.value.session_id})` }
        : { delivered: false, detail: talking.reason };
    }
  }
}

async function delivery(ctx: CareContext, id: number): Promise<DeliveryRow> {
  const row = await deliveryById(ctx.db, id);
  if (!row) throw new NotFoundError(`Info card delivery ${id} not found`);
  return row;
}

/** A screen showed the card (the first time counts). */
export async function cardViewed(ctx: CareContext, id: number): Promise<DeliveryRow> {
  await delivery(ctx, id);
  await markViewed(ctx.db, id, isoNow(ctx.clock));
  return delivery(ctx, id);
}

/** The senior put the card away: recorded once, and every other screen showing it closes it. */
export async function dismissCard(ctx: CareContext, id: number, by: string): Promise<DeliveryRow> {
  await delivery(ctx, id);
  if (await markDismissed(ctx.db, id, isoNow(ctx.clock), by)) ctx.webapp.broadcast({ type: "info_card_closed", delivery_id: id });
  return delivery(ctx, id);
}

/** The cards a tablet connecting now should show: put on the web app, not put away, recent. */
export async function openCardFrames(ctx: CareContext): Promise<CardFrame[]> {
  const since = isoAt(ctx.clock.now() - CARD_REPLAY_HOURS * 3_600_000);
  const frames: CardFrame[] = [];
  for (const d of await undismissedSince(ctx.db, since)) {
    if (!d.channels.includes("pwa")) continue;
    const card = await cardForDelivery(ctx.db, d.info_card_id);
    if (card) frames.push(await cardFrame(ctx, d.id, card));
  }
  return frames;
}
