/** Canvas pixels to the PNG a display receives, in the template's colour mode. */
import { sharpLib } from "./native-libs";
import type { ColorMode } from "./color-mode";
import { floydSteinberg } from "./dither";
import { encodeGreyPngIfGrey, encodePng1Bit } from "./png-writer";

/**
 * `rgba` is opaque 8-bit RGBA, as `canvas.data()` and sharp's `raw()` give it. An `rgb`
 * card that uses no colour is written as 8-bit greyscale: the same pixels, a smaller file.
 */
export async function encodePixels(rgba: Buffer, width: number, height: number, mode: ColorMode): Promise<Buffer> {
  if (mode === "bw_dither") return encodePng1Bit(floydSteinberg(rgba, width, height), width, height);
  const grey = encodeGreyPngIfGrey(rgba, width, height);
  if (grey) return grey;
  return sharpLib()(rgba, { raw: { width, height, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** Re-encodes a stored PNG (a template background) for a display's colour mode. */
export async function convertPng(png: Buffer, mode: ColorMode): Promise<Buffer> {
  if (mode === "rgb") return png;
  const { data, info } = await sharpLib()(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return encodePixels(data, info.width, info.height, mode);
}
