/** A card's slots as the detail shows them: every slot of its layout, filled or empty, with signed URLs. */
import { signedUrl, type MediaContext } from "../../../../household/media/media.service";
import type { Surface } from "../deliverable";
import type { CropHints, StoredVariant } from "../images/render-variants";
import type { Layout } from "../layouts/layout-schema";
import type { SlotRow } from "./cards.store";

export interface VariantView extends StoredVariant {
  surface: Surface;
  url: string;
}

export interface SlotView {
  slot_index: number;
  slot_id: string;
  filled: boolean;
  alt_text: string;
  crop_hints: CropHints;
  source_image_id: number | null;
  original_url: string | null;
  rendered_at: string | null;
  variants: VariantView[];
}

export async function variantViews(ctx: MediaContext, variants: Partial<Record<Surface, StoredVariant>>): Promise<VariantView[]> {
  const out: VariantView[] = [];
  for (const surface of ["pwa", "eink"] as const) {
    const v = variants[surface];
    if (v) out.push({ surface, ...v, url: await signedUrl(ctx, v.object_name) });
  }
  return out;
}

export async function slotManifest(ctx: MediaContext, layout: Layout | undefined, rows: readonly SlotRow[]): Promise<SlotView[]> {
  const byIndex = new Map(rows.map((r) => [r.slot_index, r]));
  const out: SlotView[] = [];
  for (const [i, spec] of (layout?.image_slots ?? []).entries()) {
    const row = byIndex.get(i);
    const filled = Boolean(row?.original_object_name);
    out.push({
      slot_index: i,
      slot_id: spec.slot_id,
      filled,
      alt_text: row?.alt_text ?? "",
      crop_hints: row?.crop_hints ?? {},
      source_image_id: row?.source_image_id ?? null,
      original_url: filled && row?.original_object_name ? await signedUrl(ctx, row.original_object_name) : null,
      rendered_at: filled ? (row?.rendered_at ?? null) : null,
      variants: filled && row ? await variantViews(ctx, row.variants) : [],
    });
  }
  return out;
}
