/** Drawing a card's slots again for its current layout (a layout change, `/rerender`). */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { findLayout } from "../layouts/layouts";
import { renderSlotVariants } from "../images/render-variants";
import { readOriginal } from "../images/stored-original";
import { cardById, slotsOf, upsertSlot } from "./cards.store";

/** Draws every filled slot again for the card's current layout. */
export async function renderAllSlots(ctx: CareContext, cardId: number): Promise<void> {
  const card = await cardById(ctx.db, cardId);
  if (!card) return;
  const layout = findLayout(ctx.settings, card.layout_id);
  const now = isoAt(ctx.clock.now());
  for (const slot of await slotsOf(ctx.db, cardId)) {
    if (!slot.original_object_name) continue;
    const spec = layout?.image_slots[slot.slot_index];
    const variants = spec ? await renderSlotVariants(ctx, await readOriginal(ctx, slot.original_object_name), spec, slot.crop_hints) : {};
    await upsertSlot(ctx.db, cardId, slot.slot_index, { variants, rendered_at: spec ? now : null });
  }
}
