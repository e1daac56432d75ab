/**
 * A slot's picture rendered into each surface variant of its layout slot: resized with sharp
 * (`cover` crops to fill, `contain` fits inside on white), turned upright by its EXIF
 * orientation (and the EXIF dropped: a phone photo's location must not travel to a display),
 * then `rgb` → WebP or PNG at the layout's quality, `bw_dither` → Floyd–Steinberg to a 1-bit
 * PNG with the e-ink renderer's own dither. Each variant goes into the media store by its
 * content, so rendering the same picture again stores nothing new.
 */
import type { Settings } from "../../../../settings";
import { ValidationError } from "../../../platform/core/errors";
import { storeObject, type MediaContext } from "../../../household/media/media.service";
import { sharpLib } from "../../eink/native-libs";
import { encodePixels } from "../../eink/png-encode";
import type { RenderedVariant } from "../deliverable";
import type { SlotSpec, Surface, VariantSpec } from "../layouts/layout-schema";

/** What a variant records (info_card_slots.variants holds surface → this). */
export type StoredVariant = Omit<RenderedVariant, "surface">;
export type VariantMap = Partial<Record<Surface, StoredVariant>>;

/** Where `cover` keeps the picture when it crops (crop_hints.focus). */
export const FOCUS = ["center", "top", "bottom", "left", "right", "attention"] as const;
export type Focus = (typeof FOCUS)[number];
export interface CropHints {
  focus?: Focus;
}

const POSITION: Readonly<Record<Focus, string>> = {
  center: "centre",
  top: "north",
  bottom: "south",
  left: "west",
  right: "east",
  attention: "attention",
};

/** One variant's bytes. */
export async function renderVariant(settings: Settings, original: Buffer, spec: VariantSpec, hints: CropHints = {}): Promise<Buffer> {
  const sharp = sharpLib();
  const { target_width: width, target_height: height } = spec;
  try {
    const resized = sharp(original, { limitInputPixels: settings.knowledge.max_pixels, failOn: "error" })
      .rotate()
      .resize(width, height, {
        fit: spec.fit_mode,
        position: spec.fit_mode === "cover" ? POSITION[hints.focus ?? "center"] : "centre",
        background: { r: 255, g: 255, b: 255, alpha: 1 },
      })
      .flatten({ background: "#ffffff" });
    if (spec.color_mode === "bw_dither") {
      const { data, info } = await resized.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return encodePixels(data, info.width, info.height, "bw_dither");
    }
    if (spec.format === "webp") return await resized.webp({ quality: spec.quality ?? 82 }).toBuffer();
    return await resized.png({ compressionLevel: 6 }).toBuffer();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ValidationError(`image: the picture cannot be decoded here (${why.slice(0, 200)}); send it as JPEG, PNG or WebP`);
  }
}

/** Every variant of the slot, rendered and stored; surfaces in the spec's order. */
export async function renderSlotVariants(ctx: MediaContext, original: Buffer, slot: SlotSpec, hints: CropHints = {}): Promise<VariantMap> {
  const out: VariantMap = {};
  for (const surface of ["pwa", "eink"] as const) {
    const spec = slot.variants[surface];
    if (!spec) continue;
    const bytes = await renderVariant(ctx.settings, original, spec, hints);
    const format = spec.format;
    out[surface] = {
      object_name: await storeObject(ctx, bytes, format),
      width: spec.target_width,
      height: spec.target_height,
      format,
      color_mode: spec.color_mode,
      fit_mode: spec.fit_mode,
    };
  }
  return out;
}
