/**
 * An info card on the e-ink displays: title and body on the left, the card's first picture
 * in its `bw_dither` e-ink variant on the right (or the text across the whole display when
 * it has none), drawn black and white and made each display's active image with the usual
 * expiry, as the `eink` notification channel does.
 */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { objectPath } from "../../../../household/media/media.service";
import { mediaObjects } from "../../../../household/media/media-objects";
import { EINK_HEIGHT, EINK_WIDTH } from "../../eink/canvas-size";
import { setActiveImage } from "../../eink/device-states.store";
import { pruneImage, saveImage } from "../../eink/image-store";
import { canvasLib } from "../../eink/native-libs";
import type { Region } from "../../eink/region";
import { renderBackground, renderCard } from "../../eink/renderer";
import { resolveTargets } from "../../eink/targets";
import { resolveTemplate } from "../../eink/template-resolve";
import type { DeliverableCard, RenderedVariant } from "../deliverable";

const MARGIN = 16;
const IMAGE_BOX = { x: 420, y: MARGIN, width: EINK_WIDTH - 420 - MARGIN, height: EINK_HEIGHT - 2 * MARGIN };

const region = (name: string, x: number, y: number, width: number, height: number, max: number, min: number): Region => ({
  name,
  x,
  y,
  width,
  height,
  font_size_max: max,
  font_size_min: min,
  align: "left",
  bg_color: null,
  text_color: "#000000",
});

/** The e-ink variant of the card's first filled slot: bw_dither for the `eink` surface, else any e-ink one. */
export function einkVariant(card: DeliverableCard): RenderedVariant | undefined {
  const variants = card.slots.flatMap((s) => s.variants).filter((v) => v.surface === "eink");
  return variants.find((v) => v.color_mode === "bw_dither") ?? variants[0];
}

async function pictureBackground(ctx: CareContext, variant: RenderedVariant): Promise<Buffer | null> {
  const bytes = await mediaObjects(ctx).get(objectPath(variant.object_name));
  if (!bytes) {
    ctx.log.warn({ object_name: variant.object_name }, "info card: the e-ink picture is missing; the card is drawn without it");
    return null;
  }
  const img = await canvasLib().loadImage(bytes);
  // Fitted inside its box (contain), centred: a dithered picture must not be scaled up unevenly.
  const scale = Math.min(IMAGE_BOX.width / img.width, IMAGE_BOX.height / img.height);
  const w = Math.round(img.width * scale);
  const h = Math.round(img.height * scale);
  return renderBackground((c) => c.drawImage(img, IMAGE_BOX.x + (IMAGE_BOX.width - w) / 2, IMAGE_BOX.y + (IMAGE_BOX.height - h) / 2, w, h));
}

export interface CardOnDisplays {
  sensor_ids: string[];
  expires_at: string;
  with_picture: boolean;
}

export async function showCardOnDisplays(ctx: CareContext, card: DeliverableCard, targets: readonly string[], expiryMinutes: number): Promise<CardOnDisplays> {
  const sensorIds = await resolveTargets(ctx, targets, { allowNone: true });
  const expiresAt = isoAt(ctx.clock.now() + expiryMinutes * 60_000);
  if (sensorIds.length === 0) return { sensor_ids: [], expires_at: expiresAt, with_picture: false };
  const variant = einkVariant(card);
  const background = variant ? await pictureBackground(ctx, variant) : null;
  const textWidth = background ? IMAGE_BOX.x - 2 * MARGIN : EINK_WIDTH - 2 * MARGIN;
  const regions = [region("title", MARGIN, MARGIN, textWidth, 120, 56, 24), region("body", MARGIN, 150, textWidth, EINK_HEIGHT - 150 - MARGIN, 36, 16)];
  const rendered = await renderCard({ background, regions, font_filename: null, color_mode: "bw_dither" }, { title: card.title, body: card.body_text });
  const hash = await saveImage(ctx, rendered.png);
  // Displays name a template with their image; a card is drawn on the default one's canvas.
  const template = await resolveTemplate(ctx, {});
  const replaced = await setActiveImage(ctx, sensorIds, {
    template_id: template.id,
    image_hash: hash,
    rendered_text: `${card.title}\n${card.body_text}`,
    expires_at: expiresAt,
  });
  for (const h of new Set(replaced)) await pruneImage(ctx, h);
  return { sensor_ids: sensorIds, expires_at: expiresAt, with_picture: background !== null };
}
