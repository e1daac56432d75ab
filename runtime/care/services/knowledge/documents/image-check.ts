/**
 * What a knowledge upload is, from its bytes: JPEG, PNG, WebP or HEIC by magic number (the
 * name and the declared type are not believed), and its size in pixels from the header
 * alone, before anything is decoded, so a decompression bomb (a few kB declaring 100000 ×
 * 100000) is refused with 413 instead of filling the memory. JPEG, PNG and WebP headers are
 * read by sharp's `metadata()` (header only); HEIC by its `ispe` box, since the prebuilt
 * libvips sharp ships reads AVIF but not HEIC (HEVC): HEIC photos are stored and served as
 * they are, never decoded here (docs/decisions.md).
 */
import { CareflowError, ValidationError } from "../../../../platform/core/errors";
import { sharpLib } from "../../../../platform/core/sharp-lib";

export type KnowledgeImageMime = "image/jpeg" | "image/png" | "image/webp" | "image/heic";

export const KNOWLEDGE_IMAGE_EXT: Readonly<Record<KnowledgeImageMime, "jpg" | "png" | "webp" | "heic">> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/webp": "webp",
  "image/heic": "heic",
};

/** 413: the upload is larger than a limit allows (bytes or pixels). */
export class TooLargeError extends CareflowError {
  constructor(message: string) {
    super(413, message);
  }
}

const HEIC_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis"]);

function isHeic(b: Buffer): boolean {
  if (b.length < 16 || b.toString("latin1", 4, 8) !== "ftyp") return false;
  const size = Math.min(b.readUInt32BE(0), b.length);
  const brands = [b.toString("latin1", 8, 12)];
  for (let i = 16; i + 4 <= size; i += 4) brands.push(b.toString("latin1", i, i + 4));
  return brands.some((x) => HEIC_BRANDS.has(x));
}

export function knowledgeImageMime(b: Buffer): KnowledgeImageMime | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  if (isHeic(b)) return "image/heic";
  return null;
}

/** The first `ispe` (image spatial extent) box of a HEIF file: the primary image's size. */
function heicSize(b: Buffer): { width: number; height: number } | null {
  const at = b.subarray(0, Math.min(b.length, 1 << 20)).indexOf("ispe", 0, "latin1");
  if (at < 4 || at + 16 > b.length) return null;
  return { width: b.readUInt32BE(at + 8), height: b.readUInt32BE(at + 12) };
}

export interface CheckedImage {
  mime: KnowledgeImageMime;
  width: number;
  height: number;
}

export interface ImageLimits {
  max_upload_bytes: number;
  max_pixels: number;
}

/** Checks one upload against the allow-list and the limits; `field` names it in every error. */
export async function checkKnowledgeImage(bytes: Buffer, field: string, limits: ImageLimits): Promise<CheckedImage> {
  if (bytes.length === 0) throw new ValidationError(`${field}: the file is empty`);
  if (bytes.length > limits.max_upload_bytes)
    throw new TooLargeError(`${field}: ${bytes.length} bytes, more than knowledge.max_upload_bytes (${limits.max_upload_bytes})`);
  const mime = knowledgeImageMime(bytes);
  if (!mime) throw new ValidationError(`${field}: not an allowed image (JPEG, PNG, WebP or HEIC, judged by its content)`);
  let size: { width: number; height: number } | null;
  if (mime === "image/heic") size = heicSize(bytes);
  else {
    try {
      // The header only: no limit is needed to read it, and ours is checked below with a clear message.
      const meta = await sharpLib()(bytes, { limitInputPixels: false }).metadata();
      size = meta.width && meta.height ? { width: meta.width, height: meta.height } : null;
    } catch {
      size = null;
    }
  }
  if (!size || size.width <= 0 || size.height <= 0) throw new ValidationError(`${field}: a ${mime} whose size cannot be read from its header`);
  const pixels = size.width * size.height;
  if (pixels > limits.max_pixels)
    throw new TooLargeError(`${field}: ${size.width}x${size.height} is ${pixels} pixels, more than knowledge.max_pixels (${limits.max_pixels})`);
  return { mime, ...size };
}
