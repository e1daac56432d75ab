/** Real JPEG frames for device tests and benchmarks, made with sharp. */
import sharp from "sharp";

/**
 * A `width`x`height` JPEG whose left half is red and right half blue, so a test can tell a
 * rotation by dimensions and by where the red half went. `seed` varies the bytes (the media
 * store is content-addressed: equal frames would share one object).
 */
export async function testJpeg(width = 640, height = 480, seed = 0): Promise<Buffer> {
  const half = Math.floor(width / 2);
  const left = await sharp({ create: { width: half, height, channels: 3, background: { r: 220, g: (seed * 7) % 40, b: 20 } } })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 40, b: 200 + (seed % 50) } } })
    .composite([{ input: left, left: 0, top: 0 }])
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** The spec's camera device payload around a frame. */
export const cameraPayload = (jpeg: Buffer, labels: string[] = ["person"], extra: Record<string, unknown> = {}) => ({
  code: 0,
  data: {
    image: jpeg.toString("base64"),
    labels,
    boxes: labels.map((_, i) => [10, 10, 100, 100, 0.9, i]),
    count: labels.length,
    perf: [[0, 1.2, 20.5]],
    resolution: [640, 480],
  },
  name: "reCamera",
  type: 1,
  ...extra,
});
