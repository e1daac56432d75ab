/**
 * An uploaded picture, checked before anything decodes it: its size against
 * `knowledge.max_upload_bytes`, its type from its first bytes against the spec's allow-list
 * (JPEG, PNG, WebP, HEIC), and its pixel count, read from the header only, against
 * `knowledge.max_pixels`. A decompression bomb (a small file that decodes to gigapixels) is
 * refused here, and the renderer's `limitInputPixels` refuses it again should a header lie.
 */
import type { Settings } from "../../../../../settings";
import { CareflowError, ValidationError } from "../../../../platform/core/errors";
import { sharpLib } from "../../eink/native-libs";

export type KnowledgeImageMime = "image/jpeg" | "image/png" | "image/webp" | "image/heic";
export const ALLOWED_MIME: readonly KnowledgeImageMime[] = ["image/jpeg", "image/png", "image/webp", "image/heic"];
export const EXT_OF: Readonly<Record<KnowledgeImageMime, "jpg" | "png" | "webp" | "heic">> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/heic": "heic",
};

export class PayloadTooLargeError extends CareflowError {
  constructor(message: string) {
    super(413, message);
  }
}

/** The type the bytes are, by their signature (never the name or the declared type). */
export function sniffMime(b: Buffer): KnowledgeImageMime | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  if (b.length >= 12 && b.toString("latin1", 4, 8) === "ftyp" && /^(heic|heix|hevc|heim|heis|mif1|msf1)$/.test(b.toString("latin1", 8, 12)))
    return "image/heic";
  return null;
}

export interface CheckedImage {
  bytes: Buffer;
  mime: KnowledgeImageMime;
  width: number;
  height: number;
}

/** Throws 413 (too many bytes or pixels) or 422 (not an allowed picture); `field` names the input. */
export async function checkImage(settings: Settings, bytes: Buffer | undefined, field: string): Promise<CheckedImage> {
  const { max_upload_bytes, max_pixels } = settings.knowledge;
  if (!bytes || bytes.length === 0) throw new ValidationError(`${field}: a picture file is required`);
  if (bytes.length > max_upload_bytes)
    throw new PayloadTooLargeError(`${field}: ${bytes.length} bytes, more than knowledge.max_upload_bytes (${max_upload_bytes})`);
  const mime = sniffMime(bytes);
  if (!mime) throw new ValidationError(`${field}: not a JPEG, PNG, WebP or HEIC picture`);
  let meta: { width?: number; height?: number };
  try {
    // metadata() reads the header only; nothing is decoded yet.
    meta = await sharpLib()(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ValidationError(`${field}: the ${mime} header cannot be read (${err instanceof Error ? err.message : String(err)})`);
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) throw new ValidationError(`${field}: the picture has no size in its header`);
  if (width * height > max_pixels)
    throw new PayloadTooLargeError(`${field}: ${width}x${height} is ${width * height} pixels, more than knowledge.max_pixels (${max_pixels})`);
  return { bytes, mime, width, height };
}
