/**
 * A slot's picture rendered into each surface variant of its layout slot: resized with sharp
 * (`cover` crops to fill, toward what draws the eye (sharp's attention strategy: skin tones,
 * saturation, detail) unless the caregiver set a focus, so a portrait in the one-large-picture
 * layout keeps the face; `contain` fits inside on white), turned upright by its EXIF
 * orientation (and the EXIF dropped: a phone photo's location must not travel to a display),
 * then `rgb` → WebP or PNG at the layout's quality, `bw_dither` → Floyd–Steinberg to a 1-bit
 * PNG with the e-ink renderer's own dither. Each variant goes into the media store by its
 * content, so rendering the same picture again stores nothing new.
 */
import type { Settings } from "../../../../../settings";
import { ValidationError } from "../../../../platform/core/errors";
import { storeObject, type MediaContext } from "../../../../household/media/media.service";
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

/** Where `cover` crops when no focus was set (docs/decisions.md, issue 45: decided by looking at a portrait on the tablet). */
export const DEFAULT_FOCUS: Focus = "attention";

/** A picture decoded once, upright, no larger than its largest variant needs: what each variant is cut from. */
export interface Working {
  data: Buffer;
  info: { width: number; height: number; channels: 1 | 2 | 3 | 4 };
}

const fail = (err: unknown): never => {
  const why = err instanceof Error ? err.message : String(err);
  throw new ValidationError(`image: the picture cannot be decoded here (${why.slice(0, 200)}); send it as JPEG, PNG or WebP`);
};

/**
 * Decodes the original once (a JPEG at the smallest of libjpeg's 1/2, 1/4, 1/8 scales that is
 * still large enough: shrink-on-load), turned upright, scaled to the smallest size from which
 * every variant is a downscale. Decoding a 12-megapixel photo is most of the cost: once, not per
 * variant.
 */
export async function decodeWorking(settings: Settings, original: Buffer, specs: readonly VariantSpec[]): Promise<Working> {
  const sharp = sharpLib();
  try {
    const meta = await sharp(original, { limitInputPixels: settings.knowledge.max_pixels }).metadata();
    const turned = (meta.orientation ?? 1) >= 5;
    const w = (turned ? meta.height : meta.width) ?? 0;
    const h = (turned ? meta.width : meta.height) ?? 0;
    const scale = Math.min(
      1,
      Math.max(
        0,
        ...specs.map((v) => (v.fit_mode === "cover" ? Math.max(v.target_width / w, v.target_height / h) : Math.min(v.target_width / w, v.target_height / h))),
      ),
    );
    const width = Math.max(1, Math.ceil(w * scale));
    const height = Math.max(1, Math.ceil(h * scale));
    const { data, info } = await sharp(original, { limitInputPixels: settings.knowledge.max_pixels, failOn: "error" })
      .rotate()
      .resize(width, height, { fit: "fill" })
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, info: { width: info.width, height: info.height, channels: info.channels } };
  } catch (err) {
    return fail(err);
  }
}

/** One variant's bytes, from the decoded picture. */
export async function renderVariant(working: Working, spec: VariantSpec, hints: CropHints = {}): Promise<Buffer> {
  const { target_width: width, target_height: height } = spec;
  try {
    const resized = sharpLib()(working.data, { raw: working.info })
      .resize(width, height, {
        fit: spec.fit_mode,
        position: spec.fit_mode === "cover" ? POSITION[hints.focus ?? DEFAULT_FOCUS] : "centre",
        background: { r: 255, g: 255, b: 255, alpha: 1 },
      })
      .flatten({ background: "#ffffff" });
    if (spec.color_mode === "bw_dither") {
      const { data, info } = await resized.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      return await encodePixels(data, info.width, info.height, "bw_dither");
    }
    // effort 2 of 6: a tablet photo at a third of the encode time, a few percent larger.
    if (spec.format === "webp") return await resized.webp({ quality: spec.quality ?? 82, effort: 2 }).toBuffer();
    return await resized.png({ compressionLevel: 6 }).toBuffer();
  } catch (err) {
    return fail(err);
  }
}

/** Every variant of the slot, rendered and stored; surfaces in the spec's order. */
export async function renderSlotVariants(ctx: MediaContext, original: Buffer, slot: SlotSpec, hints: CropHints = {}): Promise<VariantMap> {
  const out: VariantMap = {};
  const specs = (["pwa", "eink"] as const).flatMap((s) => slot.variants[s] ?? []);
  if (specs.length === 0) return out;
  const working = await decodeWorking(ctx.settings, original, specs);
  // The variants encode at once: sharp works in libuv's pool, so a second core is not left idle.
  const surfaces = (["pwa", "eink"] as const).filter((s) => slot.variants[s]);
  const rendered = await Promise.all(surfaces.map((s) => renderVariant(working, slot.variants[s] as VariantSpec, hints)));
  for (const [i, surface] of surfaces.entries()) {
    const spec = slot.variants[surface] as VariantSpec;
    out[surface] = {
      object_name: await storeObject(ctx, rendered[i], spec.format),
      width: spec.target_width,
      height: spec.target_height,
      format: spec.format,
      color_mode: spec.color_mode,
      fit_mode: spec.fit_mode,
    };
  }
  return out;
}
