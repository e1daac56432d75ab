/** What the knowledge API tests share: a multipart sender, test photos, and documents made and approved. */
import assert from "node:assert/strict";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { KEYS, type ApiResponse, type TestApp } from "../../../../support/test-app";

export interface FilePart {
  field: string;
  bytes: Buffer;
  name?: string;
  type?: string;
}

export async function sendForm(
  t: TestApp,
  method: string,
  path: string,
  fields: Record<string, string>,
  files: FilePart[] = [],
  key: string = KEYS.admin,
): Promise<ApiResponse> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append(f.field, new Blob([new Uint8Array(f.bytes)], { type: f.type ?? "image/png" }), f.name ?? "photo.png");
  const res = await fetch(t.baseUrl + path, { method, headers: { "x-api-key": key }, body: form });
  const text = await res.text();
  const body = (res.headers.get("content-type") ?? "").includes("json") && text ? JSON.parse(text) : text;
  return { status: res.status, body, headers: res.headers, text };
}

export const png = (width = 40, height = 30, r = 200): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r, g: 80, b: 40 } } })
    .png()
    .toBuffer();

export const webp = (width = 40, height = 30): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: { r: 10, g: 80, b: 200 } } })
    .webp()
    .toBuffer();

/** A real PNG of 1x1 whose header then says `width`x`height`: a decompression bomb's shape, a few bytes long. */
export async function pngBomb(width: number, height: number): Promise<Buffer> {
  const b = Buffer.from(await png(1, 1));
  // IHDR data starts at byte 16 (8 signature + 4 length + 4 type); its CRC follows the 13 bytes.
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b.writeUInt32BE(crc32(b.subarray(12, 29)) >>> 0, 29);
  return b;
}

/** A minimal HEIF header: `ftyp` with brand heic and an `ispe` box of the given size (no image data). */
export function heicHeader(width: number, height: number): Buffer {
  const box = (type: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + body.length, 0);
    head.write(type, 4, "latin1");
    return Buffer.concat([head, body]);
  };
  const ispe = Buffer.alloc(12);
  ispe.writeUInt32BE(width, 4);
  ispe.writeUInt32BE(height, 8);
  const ftyp = box("ftyp", Buffer.from("heic\0\0\0\0mif1heic", "latin1"));
  return Buffer.concat([ftyp, box("meta", Buffer.concat([Buffer.alloc(4), box("iprp", box("ipco", box("ispe", ispe)))]))]);
}

/** Creates a document (JSON fields through the form) and returns its body. */
export async function makeDocument(t: TestApp, title: string, source_text: string, tags = "", approve = false): Promise<any> {
  const res = await sendForm(t, "POST", "/api/v1/knowledge/documents", { title, source_text, tags });
  assert.equal(res.status, 201, res.text);
  if (!approve) return res.body;
  const ok = await t.post(`/api/v1/knowledge/documents/${res.body.id}/approve`);
  assert.equal(ok.status, 200, ok.text);
  return ok.body;
}
