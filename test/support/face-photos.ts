/**
 * Real photos with faces for the identity tests and the benchmark: the sample photos that
 * `@vladmandic/face-api` ships in its `demo/` folder (group photos of 3–5 people, 1920 px
 * wide), scaled to camera size, and single-face crops of them with augmentations (rotation,
 * scale, brightness) made with sharp. Nothing is downloaded.
 */
import path from "node:path";
import sharp from "sharp";

export const SAMPLE_COUNT = 6;

export function samplePath(n: number): string {
  return path.join(path.dirname(require.resolve("@vladmandic/face-api/package.json")), "demo", `sample${n}.jpg`);
}

/** Sample `n` as a camera frame `width` pixels wide (JPEG). */
export async function sampleFrame(n: number, width = 640): Promise<Buffer> {
  return sharp(samplePath(n)).resize({ width }).jpeg({ quality: 90 }).toBuffer();
}

export interface Augment {
  /** Degrees, clockwise. */
  rotate?: number;
  /** Output scale of the crop. */
  scale?: number;
  brightness?: number;
  /** The crop's side as a multiple of the face box (default 1.8). */
  margin?: number;
  /** Shift of the crop's centre, as a fraction of the face box. */
  shift?: [number, number];
}

/** A crop around `bbox` ([x1,y1,x2,y2] in `frame`), augmented: one face, another picture of it. */
export async function faceCrop(frame: Buffer, bbox: readonly number[], a: Augment = {}): Promise<Buffer> {
  const meta = await sharp(frame).metadata();
  const W = meta.width ?? 0;
  const H = meta.height ?? 0;
  const [x1, y1, x2, y2] = bbox;
  const w = x2 - x1;
  const h = y2 - y1;
  const side = Math.round(Math.max(w, h) * (a.margin ?? 1.8));
  const cx = (x1 + x2) / 2 + (a.shift?.[0] ?? 0) * w;
  const cy = (y1 + y2) / 2 + (a.shift?.[1] ?? 0) * h;
  const left = Math.max(0, Math.min(W - 1, Math.round(cx - side / 2)));
  const top = Math.max(0, Math.min(H - 1, Math.round(cy - side / 2)));
  const region = { left, top, width: Math.min(side, W - left), height: Math.min(side, H - top) };
  const out = Math.round(Math.max(region.width, region.height) * (a.scale ?? 1.5));
  let img = sharp(frame).extract(region).resize({ width: out });
  if (a.brightness !== undefined) img = sharp(await img.toBuffer()).modulate({ brightness: a.brightness });
  if (a.rotate) img = sharp(await img.toBuffer()).rotate(a.rotate, { background: "#808080" });
  return img.jpeg({ quality: 90 }).toBuffer();
}

/** The five enrollment augmentations and a sixth, different one to identify by. */
export const ENROLL_AUGMENTS: readonly Augment[] = [
  {},
  { rotate: -8, brightness: 1.15 },
  { rotate: 8, scale: 1.2 },
  { brightness: 0.8, scale: 2, shift: [0.05, 0] },
  { rotate: 4, brightness: 1.25, margin: 2 },
];
export const PROBE_AUGMENT: Augment = { rotate: -5, scale: 1.1, brightness: 0.9, margin: 2.2, shift: [-0.05, 0.05] };
