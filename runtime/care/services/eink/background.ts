/**
 * Uploaded backgrounds become 800x480 PNGs. `contain` on white, not `cover`: a caregiver
 * who uploads a picture of another shape loses nothing of it, and white bars look like the
 * paper of the display. EXIF rotation is applied and transparency flattened onto white.
 */
import { sharpLib } from "./native-libs";
import { ValidationError } from "../../../platform/core/errors";
import { EINK_HEIGHT, EINK_WIDTH } from "./canvas-size";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/**
 * The picture formats a background may be, told by their first bytes: the declared type and
 * the file name are the sender's word, and libvips would otherwise render whatever it
 * recognises, an SVG (XML that can reference other files) among them (issue 51 item 13).
 */
export function backgroundFormat(b: Buffer): "png" | "jpeg" | "webp" | "gif" | "tiff" | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "webp";
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString("latin1", 0, 6))) return "gif";
  if (b.length >= 4 && (b.toString("latin1", 0, 4) === "II*\u0000" || b.toString("latin1", 0, 4) === "MM\u0000*")) return "tiff";
  return null;
}

export async function normalizeBackground(upload: Buffer, field = "image"): Promise<Buffer> {
  const format = backgroundFormat(upload);
  if (!format)
    throw new ValidationError(`${field}: not a readable image (send a PNG, JPEG, WebP, GIF or TIFF file; judged by its content, not its declared type)`);
  try {
    return await sharpLib()(upload, { limitInputPixels: 40_000_000 })
      .rotate()
      .resize(EINK_WIDTH, EINK_HEIGHT, { fit: "contain", background: "#ffffff" })
      .flatten({ background: "#ffffff" })
      .png({ compressionLevel: 6 })
      .toBuffer();
  } catch {
    throw new ValidationError(`${field}: not a readable image (send a PNG, JPEG, WebP, GIF or TIFF file)`);
  }
}
