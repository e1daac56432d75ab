/** Info cards: create, list, detail with the slot manifest, change, lifecycle, hard delete. */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { parseInput } from "../../../../platform/core/validation";
import { findLayout } from "../layouts/layouts";
import type { Layout } from "../layouts/layout-schema";
import { assertNotUsedByRules } from "../rule-references";
import { withDocumentRef } from "../shared/document-ref";
import { checkLifecycle, type LifecycleAction } from "../shared/lifecycle";
import { cardCreateSchema, cardPatchSchema } from "./card-schemas";
import { cardById, deleteCardRow, insertCard, listCardRows, slotsOf, updateCard, type CardFilter, type CardRow } from "./cards.store";
import { renderAllSlots } from "./card-render";
import { slotManifest, type SlotView } from "./slot-manifest";

export interface CardView extends CardRow {
  slots: SlotView[];
  /** Slots the layout still needs filled before the card can be approved. */
  missing_images: number;
}

export function cardLayout(ctx: CareContext, layoutId: string, field = "layout_id"): Layout {
  const layout = findLayout(ctx.settings, layoutId);
  if (!layout) throw new ValidationError(`${field}: unknown layout '${layoutId.slice(0, 64)}' (GET /api/v1/knowledge/layouts lists them)`);
  if (layout.applies_to !== "info_card") throw new ValidationError(`${field}: layout '${layoutId}' is for ${layout.applies_to}, not info cards`);
  return layout;
}

export async function cardRow(ctx: CareContext, id: number): Promise<CardRow> {
  const card = await cardById(ctx.db, id);
  if (!card) throw new NotFoundError(`Info card ${id} not found`);
  return card;
}

export async function getCard(ctx: CareContext, id: number): Promise<CardView> {
  const card = await cardRow(ctx, id);
  const layout = findLayout(ctx.settings, card.layout_id);
  const slots = await slotManifest(ctx, layout, await slotsOf(ctx.db, id));
  const filled = slots.filter((s) => s.filled).length;
  return { ...card, slots, missing_images: Math.max(0, (layout?.min_images ?? 0) - filled) };
}

export async function listCards(ctx: CareContext, f: CardFilter): Promise<{ items: CardRow[]; total: number; limit: number; offset: number }> {
  const { rows, total } = await listCardRows(ctx.db, f);
  return { items: rows, total, limit: f.limit, offset: f.offset };
}

export async function createCard(ctx: CareContext, by: string, input: unknown): Promise<CardView> {
  const c = parseInput(cardCreateSchema, input);
  cardLayout(ctx, c.layout_id);
  const now = isoAt(ctx.clock.now());
  const id = await withDocumentRef(c.document_id, () =>
    insertCard(ctx.db, {
      document_id: c.document_id ?? null,
      layout_id: c.layout_id,
      title: c.title,
      body_text: c.body_text,
      voice_instruction: c.voice_instruction ?? null,
      tags: c.tags ?? [],
      status: "draft",
      created_by: by,
      created_at: now,
      updated_at: now,
    }),
  );
  return getCard(ctx, id);
}

export async function patchCard(ctx: CareContext, id: number, input: unknown): Promise<CardView> {
  const patch = parseInput(cardPatchSchema, input);
  const card = await cardRow(ctx, id);
  checkLifecycle(`Info card ${id}`, card.status, "edit");
  const relayout = patch.layout_id !== undefined && patch.layout_id !== card.layout_id;
  if (relayout) {
    const layout = cardLayout(ctx, patch.layout_id as string);
    if (card.status === "approved") {
      // An approved card stays deliverable: a layout it cannot fill is refused, not half-shown.
      const filled = (await slotsOf(ctx.db, id)).filter((s) => s.original_object_name && s.slot_index < layout.image_slots.length).length;
      if (filled < layout.min_images)
        throw new ConflictError(
          `Info card ${id} is approved and layout '${layout.id}' needs ${layout.min_images} pictures in its slots; it would have ${filled}. Set the pictures first, or archive and restore the card to rework it`,
        );
    }
  }
  await withDocumentRef(patch.document_id, () => updateCard(ctx.db, id, { ...patch, version: card.version + 1, updated_at: isoAt(ctx.clock.now()) }));
  // A new layout has new sizes: every picture is drawn again for it.
  if (relayout) await renderAllSlots(ctx, id);
  return getCard(ctx, id);
}

export async function deleteCard(ctx: CareContext, id: number): Promise<void> {
  await cardRow(ctx, id);
  await assertNotUsedByRules(ctx, { kind: "card", id });
  await deleteCardRow(ctx.db, id);
}

export async function cardLifecycle(ctx: CareContext, id: number, action: Exclude<LifecycleAction, "edit">, by: string): Promise<CardView> {
  const card = await cardRow(ctx, id);
  checkLifecycle(`Info card ${id}`, card.status, action);
  const now = isoAt(ctx.clock.now());
  if (action === "approve") {
    const view = await getCard(ctx, id);
    if (view.missing_images > 0) {
      const empty = view.slots.filter((s) => !s.filled).map((s) => `${s.slot_index} '${s.slot_id}'`);
      throw new ValidationError(
        `layout_id: layout '${card.layout_id}' needs at least ${findLayout(ctx.settings, card.layout_id)?.min_images ?? 0} images; ${view.missing_images} missing (empty slots: ${empty.join(", ")})`,
      );
    }
    await updateCard(ctx.db, id, { status: "approved", approved_by: by, approved_at: now, updated_at: now });
  } else if (action === "archive") {
    await updateCard(ctx.db, id, { status: "archived", archived_at: now, updated_at: now });
  } else {
    await updateCard(ctx.db, id, { status: "draft", archived_at: null, approved_at: null, approved_by: null, updated_at: now });
  }
  return getCard(ctx, id);
}

export async function rerenderCard(ctx: CareContext, id: number): Promise<CardView> {
  await cardRow(ctx, id);
  await renderAllSlots(ctx, id);
  return getCard(ctx, id);
}
