/**
 * Rendering for displays: one PNG per request (the same card for every target), stored
 * once, and each target's active image pointed at it with an expiry. This is what
 * `POST /image/render` and the `eink` notification channel call.
 */
import type { CareContext } from "../../core/context";
import { isoNow } from "../../../platform/core/clock";
import { ValidationError } from "../../../platform/core/errors";
import { parseInput } from "../../../platform/core/validation";
import { clearActiveImage, setActiveImage } from "./device-states.store";
import { pruneImage, saveImage } from "./image-store";
import {
  joinTexts,
  previewRequestSchema,
  renderRequestSchema,
  resetRequestSchema,
  textsForRegions,
  type PreviewRequest,
  type RenderRequest,
  type ResetRequest,
} from "./render-request";
import { renderCard, type RenderedCard } from "./renderer";
import { resolveTargets } from "./targets";
import type { EinkTemplate } from "./template";
import { layoutFor, resolveTemplate } from "./template-resolve";

export interface RenderReceipt {
  status: "rendered";
  sensor_ids: string[];
  template_id: number;
  image_hash: string;
  expires_at: string;
}

export interface ResetReceipt {
  status: "reset";
  sensor_ids: string[];
}

interface RenderedForRequest {
  template: EinkTemplate;
  texts: Record<string, string>;
  card: RenderedCard;
}

async function renderForRequest(ctx: CareContext, req: PreviewRequest, requireText: boolean): Promise<RenderedForRequest> {
  const template = await resolveTemplate(ctx, req);
  const texts = textsForRegions(template.name, template.regions, req.text, req.regions);
  if (requireText && Object.values(texts).every((t) => t.trim() === "")) {
    throw new ValidationError("text: give the text to show (text, or regions with text per region name)");
  }
  const card = await renderCard(await layoutFor(ctx, template, req.color_mode), texts);
  return { template, texts, card };
}

/** Renders once and makes the card the active image of every target until it expires. */
export async function renderToDevices(ctx: CareContext, request: RenderRequest): Promise<RenderReceipt> {
  const req = parseInput(renderRequestSchema, request);
  const sensorIds = await resolveTargets(ctx, req.sensor_ids);
  const { template, texts, card } = await renderForRequest(ctx, req, true);
  const imageHash = await saveImage(ctx, card.png);
  const minutes = req.expires_in_minutes ?? ctx.settings.notifications.eink.default_expiry_minutes;
  const expiresAt = new Date(ctx.clock.now() + minutes * 60_000).toISOString();
  const replaced = await setActiveImage(ctx, sensorIds, {
    template_id: template.id,
    image_hash: imageHash,
    rendered_text: joinTexts(template.regions, texts),
    expires_at: expiresAt,
  });
  for (const hash of new Set(replaced)) await pruneImage(ctx, hash);
  ctx.log.info({ sensor_ids: sensorIds, template_id: template.id, expires_at: expiresAt }, "e-ink image rendered");
  return { status: "rendered", sensor_ids: sensorIds, template_id: template.id, image_hash: imageHash, expires_at: expiresAt };
}

/** The PNG a render would produce, without saving anything. */
export async function previewImage(ctx: CareContext, request: PreviewRequest): Promise<Buffer> {
  const req = parseInput(previewRequestSchema, request);
  return (await renderForRequest(ctx, req, false)).card.png;
}

/** Sends displays back to the default template; the next poll then refreshes them. */
export async function resetDevices(ctx: CareContext, request: ResetRequest = {}): Promise<ResetReceipt> {
  const req = parseInput(resetRequestSchema, request);
  const sensorIds = await resolveTargets(ctx, req.sensor_ids, { ignoreConfiguredTargets: true, allowNone: true });
  const replaced = await clearActiveImage(ctx, sensorIds);
  for (const hash of new Set(replaced)) await pruneImage(ctx, hash);
  ctx.log.info({ sensor_ids: sensorIds, at: isoNow(ctx.clock) }, "e-ink displays reset to the default template");
  return { status: "reset", sensor_ids: sensorIds };
}
