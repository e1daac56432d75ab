/** What the knowledge authoring tests share: pictures, uploads and reading rendered variants back. */
import sharp from "sharp";
import { KEYS, type ApiResponse, type TestApp } from "../../../../support/test-app";

/** A JPEG with a left-to-right gradient (so a crop or a fit shows). */
export async function gradientJpeg(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = Math.round((255 * x) / width);
      raw[i + 1] = Math.round((255 * y) / height);
      raw[i + 2] = 128;
    }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** A PNG whose header claims `width`x`height` but holds a few bytes (a decompression bomb's shape). */
export function bombPng(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** PUTs a picture as multipart (`image`, optional `alt_text`). */
export async function putPicture(
  t: TestApp,
  path: string,
  bytes: Buffer,
  fields: Record<string, string> = {},
  key: string = KEYS.admin,
  type = "image/jpeg",
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("image", new Blob([new Uint8Array(bytes)], { type }), "photo.jpg");
  const res = await fetch(t.baseUrl + path, { method: "PUT", headers: { "x-api-key": key }, body: form });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text, headers: res.headers, text };
}

/** Fetches a signed URL (no key: the signature is the credential). */
export async function fetchSigned(t: TestApp, url: string): Promise<{ status: number; bytes: Buffer; type: string | null }> {
  const res = await fetch(url.startsWith("http") ? url : t.baseUrl + url);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), type: res.headers.get("content-type") };
}

/** True when every pixel of the picture is pure black or pure white. */
export async function onlyBlackAndWhite(png: Buffer): Promise<boolean> {
  const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  for (const v of data) if (v !== 0 && v !== 255) return false;
  return true;
}

/** A portrait photo (600x900): a smiling face with dark eyes in the upper third, a garden below. */
export async function portraitJpeg(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="900">
  <rect width="600" height="900" fill="#b9d3e6"/>
  <rect y="520" width="600" height="380" fill="#5d8a3c"/>
  <ellipse cx="300" cy="470" rx="170" ry="120" fill="#3b5b8c"/>
  <ellipse cx="300" cy="230" rx="95" ry="120" fill="#e8b896"/>
  <ellipse cx="300" cy="135" rx="100" ry="50" fill="#6b4a2b"/>
  <circle cx="265" cy="220" r="11" fill="#2b2b2b"/><circle cx="335" cy="220" r="11" fill="#2b2b2b"/>
  <path d="M260 290 Q300 320 340 290" stroke="#a0483c" stroke-width="8" fill="none"/>
  <rect x="60" y="700" width="120" height="120" fill="#d94f4f"/><rect x="420" y="650" width="90" height="170" fill="#8a5a2b"/>
</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

/** How many pixels of an RGB(A) picture are near the portrait's eye colour (#2b2b2b). */
export async function eyePixels(picture: Buffer): Promise<number> {
  const { data, info } = await sharp(picture).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let n = 0;
  for (let i = 0; i < data.length; i += info.channels) if (data[i] < 70 && data[i + 1] < 70 && data[i + 2] < 70) n++;
  return n;
}
