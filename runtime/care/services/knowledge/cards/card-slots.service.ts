/**
 * A card's picture slots: set (upload or a document's image, rendered at once into every
 * surface variant of the layout slot), alt text and crop hints, clear, and rendering all
 * slots again (a layout change, `/rerender`). A slot beyond the current layout keeps its
 * original but loses its variants; switching back to a layout with that slot renders it again.
 */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { parseInput } from "../../../../platform/core/validation";
import { findLayout } from "../layouts/layouts";
import type { Layout } from "../layouts/layout-schema";
import { newPicture } from "../images/picture-source";
import { renderSlotVariants } from "../images/render-variants";
import { readOriginal } from "../images/stored-original";
import type { PictureSource } from "../images/upload-form";
import { checkLifecycle } from "../shared/lifecycle";
import { slotPatchSchema } from "./card-schemas";
import { cardById, slotsOf, updateCard, upsertSlot } from "./cards.store";
import { getCard, type CardView } from "./cards.service";

async function cardAndLayout(ctx: CareContext, cardId: number, index: number): Promise<{ layout: Layout; status: string }> {
  const card = await cardById(ctx.db, cardId);
  if (!card) throw new NotFoundError(`Info card ${cardId} not found`);
  checkLifecycle(`Info card ${cardId}`, card.status, "edit");
  const layout = findLayout(ctx.settings, card.layout_id);
  const count = layout?.image_slots.length ?? 0;
  if (!layout || index >= count)
    throw new NotFoundError(
      count === 0
        ? `Slot ${index} not found: layout '${card.layout_id}' has no image slots`
        : `Slot ${index} not found: layout '${card.layout_id}' has slots 0 to ${count - 1}`,
    );
  return { layout, status: card.status };
}

const touch = (ctx: CareContext, cardId: number) => updateCard(ctx.db, cardId, { updated_at: isoAt(ctx.clock.now()) });

export async function setSlot(ctx: CareContext, cardId: number, index: number, src: PictureSource): Promise<CardView> {
  const { layout } = await cardAndLayout(ctx, cardId, index);
  const picture = await newPicture(ctx, src);
  const previous = (await slotsOf(ctx.db, cardId)).find((s) => s.slot_index === index);
  const variants = await renderSlotVariants(ctx, picture.bytes, layout.image_slots[index], previous?.crop_hints ?? {});
  await upsertSlot(ctx.db, cardId, index, {
    source_image_id: picture.source_image_id,
    original_object_name: picture.object_name,
    ...(picture.alt_text !== undefined ? { alt_text: picture.alt_text } : {}),
    variants,
    rendered_at: isoAt(ctx.clock.now()),
  });
  await touch(ctx, cardId);
  return getCard(ctx, cardId);
}

export async function patchSlot(ctx: CareContext, cardId: number, index: number, input: unknown): Promise<CardView> {
  const patch = parseInput(slotPatchSchema, input);
  if (Object.keys(patch).length === 0) throw new ValidationError("body: send alt_text and/or crop_hints");
  const { layout } = await cardAndLayout(ctx, cardId, index);
  const slot = (await slotsOf(ctx.db, cardId)).find((s) => s.slot_index === index);
  await upsertSlot(ctx.db, cardId, index, patch);
  // A new crop focus changes what `cover` keeps: the variants are drawn again.
  if (patch.crop_hints && slot?.original_object_name) {
    const variants = await renderSlotVariants(ctx, await readOriginal(ctx, slot.original_object_name), layout.image_slots[index], patch.crop_hints);
    await upsertSlot(ctx.db, cardId, index, { variants, rendered_at: isoAt(ctx.clock.now()) });
  }
  await touch(ctx, cardId);
  return getCard(ctx, cardId);
}

/** Empties the slot; its files go with the media sweep once nothing else names them. */
export async function clearSlot(ctx: CareContext, cardId: number, index: number): Promise<CardView> {
  const { layout, status } = await cardAndLayout(ctx, cardId, index);
  if (status === "approved") {
    // An approved card stays deliverable: clearing below the layout's minimum is refused.
    const filled = (await slotsOf(ctx.db, cardId)).filter(
      (s) => s.original_object_name && s.slot_index < layout.image_slots.length && s.slot_index !== index,
    ).length;
    if (filled < layout.min_images)
      throw new ConflictError(
        `Info card ${cardId} is approved and layout '${layout.id}' needs ${layout.min_images} pictures; replace this one (PUT) instead of clearing it, or archive the card`,
      );
  }
  await upsertSlot(ctx.db, cardId, index, { original_object_name: null, source_image_id: null, variants: {}, rendered_at: null });
  await touch(ctx, cardId);
  return getCard(ctx, cardId);
}
