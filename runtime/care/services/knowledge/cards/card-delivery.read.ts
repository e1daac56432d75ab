/** A card as the delivery side reads it (deliverable.ts): its row and its filled slots' variants. */
import type { Knex } from "knex";
import { fromJsonText } from "../../../../platform/db/json-column";
import type { DeliverableCard, DeliverableSlot, RenderedVariant } from "../deliverable";

interface CardRow {
  id: number;
  layout_id: string;
  title: string;
  body_text: string;
  voice_instruction: string | null;
  status: string;
  tags: string;
}

interface SlotRow {
  slot_index: number;
  alt_text: string;
  original_object_name: string | null;
  variants: string;
}

/** The slot's variants (stored as surface → variant) as a list, pwa first. */
export function slotOf(row: { slot_index: number; alt_text: string; variants: string }): DeliverableSlot {
  const bySurface = fromJsonText<Record<string, Omit<RenderedVariant, "surface">>>(row.variants, {});
  const variants = Object.entries(bySurface)
    .map(([surface, v]) => ({ ...v, surface: surface as RenderedVariant["surface"] }))
    .sort((a, b) => a.surface.localeCompare(b.surface) * -1);
  return { slot_index: Number(row.slot_index), alt_text: row.alt_text, variants };
}

export async function cardForDelivery(db: Knex, id: number): Promise<DeliverableCard | undefined> {
  const card = (await db("info_cards").where({ id }).first()) as CardRow | undefined;
  if (!card) return undefined;
  const slots = (await db("info_card_slots").where({ info_card_id: id }).whereNotNull("original_object_name").orderBy("slot_index")) as SlotRow[];
  return {
    id: Number(card.id),
    layout_id: card.layout_id,
    title: card.title,
    body_text: card.body_text,
    voice_instruction: card.voice_instruction,
    status: card.status,
    tags: fromJsonText<string[]>(card.tags, []),
    slots: slots.map(slotOf),
  };
}
