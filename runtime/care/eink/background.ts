/**
 * Uploaded backgrounds become 800x480 PNGs. `contain` on white, not `cover`: a caregiver
 * who uploads a picture of another shape loses nothing of it, and white bars look like the
 * paper of the display. EXIF rotation is applied and transparency flattened onto white.
 */
import { sharpLib } from "./native-libs";
import { ValidationError } from "../../platform/core/errors";
import { EINK_HEIGHT, EINK_WIDTH } from "./canvas-size";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export async function normalizeBackground(upload: Buffer, field = "image"): Promise<Buffer> {
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
