/** Helpers the e-ink tests share: multipart requests, PNG decoding and pixel checks. */
import sharp from "sharp";
import { KEYS, type ApiResponse, type TestApp } from "../../../../support/test-app";

export interface DecodedImage {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

/** Sends a multipart form; `image` becomes the file field of that name. */
export async function postForm(
  t: TestApp,
  method: string,
  path: string,
  fields: Record<string, string>,
  image?: Buffer,
  key: string = KEYS.admin,
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (image) form.append("image", new Blob([new Uint8Array(image)], { type: "image/png" }), "background.png");
  const res = await fetch(t.baseUrl + path, { method, headers: { "x-api-key": key }, body: form });
  const buf = Buffer.from(await res.arrayBuffer());
  const text = buf.toString("utf8");
  const json = (res.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : undefined;
  return { status: res.status, body: json ?? buf, headers: res.headers, text };
}

/** Fetches raw bytes (for PNG answers). */
export async function getBytes(
  t: TestApp,
  path: string,
  init: { key?: string | null; headers?: Record<string, string>; method?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.key !== null) headers["x-api-key"] = init.key ?? KEYS.admin;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] = "application/json";
  }
  const res = await fetch(t.baseUrl + path, { method: init.method ?? "GET", headers, body });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export async function decodePng(png: Buffer): Promise<DecodedImage> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
}

export function pixel(img: DecodedImage, x: number, y: number): number[] {
  const i = (y * img.width + x) * img.channels;
  return Array.from(img.data.subarray(i, i + img.channels));
}

/** How many pixels in the rectangle differ from `rgb` (by more than a little). */
export function countDiffering(img: DecodedImage, rect: { x: number; y: number; width: number; height: number }, rgb: readonly number[]): number {
  let n = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const p = pixel(img, x, y);
      if (p.some((v, c) => Math.abs(v - rgb[c % rgb.length]) > 40)) n++;
    }
  }
  return n;
}

/** The leftmost and rightmost columns with ink (dark pixels) inside a horizontal band. */
export function inkSpan(img: DecodedImage, y0: number, y1: number): { left: number; right: number } | null {
  let left = Infinity;
  let right = -Infinity;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < img.width; x++) {
      if (pixel(img, x, y)[0] < 128) {
        left = Math.min(left, x);
        right = Math.max(right, x);
      }
    }
  }
  return Number.isFinite(left) ? { left, right } : null;
}

/** A solid-colour PNG of any size, to upload as a background. */
export const solidPng = (width: number, height: number, rgb: [number, number, number]): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .png()
    .toBuffer();
