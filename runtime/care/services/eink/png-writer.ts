/**
 * A minimal PNG writer for greyscale images (8-bit and 1-bit). E-ink cards are nearly
 * always black text on white, so writing one grey byte (or bit) per pixel and deflating
 * it costs about 2 ms, where sharp's RGB encode costs ~5 ms and its 1-bit palette path
 * (through a quantiser) ~14 ms. The files are standard PNG (colour type 0).
 */
import os from "node:os";
import zlib from "node:zlib";

const LITTLE_ENDIAN = os.endianness() === "LE";
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IHDR_BYTES = 13;
const CHUNK_OVERHEAD = 12; // length, type, CRC

/** Writes one chunk (length, type, data, CRC) into `out` at `at`; returns the offset after it. */
function writeChunk(out: Buffer, at: number, type: string, data: Uint8Array): number {
  out.writeUInt32BE(data.length, at);
  out.write(type, at + 4, "ascii");
  out.set(data, at + 8);
  const end = at + 8 + data.length;
  out.writeUInt32BE(zlib.crc32(out.subarray(at + 4, end)) >>> 0, end);
  return end + 4;
}

function png(width: number, height: number, bitDepth: 1 | 8, rows: Buffer): Buffer {
  const ihdr = Buffer.alloc(IHDR_BYTES);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = 0; // greyscale; bytes 10-12: deflate, adaptive filtering, no interlace
  // Run-length deflate at level 1: a card is long runs of white with short runs of text, so
  // RLE finds nearly everything level 3's string matching does (a card's file ~10 % larger)
  // in a quarter of the time (issue 29: it was a fifth of a render). One 64 kB output chunk
  // holds a card's IDAT whole, so zlib hands it back without gathering pieces.
  const idat = zlib.deflateSync(rows, { level: 1, strategy: zlib.constants.Z_RLE, chunkSize: 64 * 1024 });
  // The file written once, in place: no per-chunk buffers to concatenate.
  const out = Buffer.allocUnsafe(SIGNATURE.length + 3 * CHUNK_OVERHEAD + IHDR_BYTES + idat.length);
  SIGNATURE.copy(out, 0);
  let at = writeChunk(out, SIGNATURE.length, "IHDR", ihdr);
  at = writeChunk(out, at, "IDAT", idat);
  writeChunk(out, at, "IEND", new Uint8Array(0));
  return out;
}

// The rows of the last size written, reused: a fresh 384 kB buffer per card was mostly the
// kernel zeroing new pages (issue 29). Safe because a card is written synchronously, and
// every pixel byte is written each time; filter bytes are never written, so they stay 0.
let scratch: Buffer | undefined;

/**
 * The shared buffer for 8-bit greyscale rows of `width` x `height`: each row a filter byte
 * (0, "none") then one byte per pixel. Its pixels are whatever the last card left there
 * (its filter bytes always 0: write only pixels, or rows with 0 filter bytes); use it only
 * synchronously, between filling it and `encodeGreyRows`.
 */
export function greyRowsScratch(width: number, height: number): Buffer {
  const bytes = (width + 1) * height;
  return scratch?.length === bytes ? scratch : (scratch = Buffer.alloc(bytes));
}

let packedRow = new Uint32Array(0);

/**
 * Writes a block of opaque RGBA pixels (`w` x `h`, its rows `stride` pixels apart in `rgba`)
 * as grey into PNG rows of an image `width` wide, with its top-left corner at (`x`, `y`).
 * False as soon as a pixel has colour (R, G, B differ): the caller then writes colour, so
 * nothing is ever lost by trying grey.
 */
export function writeGreyBlock(
  rgba: Uint8Array | Uint8ClampedArray,
  stride: number,
  w: number,
  h: number,
  rows: Buffer,
  width: number,
  x: number,
  y: number,
): boolean {
  const rowBytes = width + 1;
  if (LITTLE_ENDIAN && rgba.byteOffset % 4 === 0) {
    // One 32-bit read per pixel (little-endian A B G R): R == G == B when the low 16 bits
    // of (p ^ (p >>> 8)) are zero. Four grey bytes are packed into one 32-bit word of an
    // aligned row buffer, then copied into the (unaligned) PNG row at once: a third faster
    // than storing byte by byte.
    const px = new Uint32Array(rgba.buffer, rgba.byteOffset, (h - 1) * stride + w);
    const quads = w >> 2;
    if (packedRow.length < quads) packedRow = new Uint32Array(quads);
    const packedBytes = new Uint8Array(packedRow.buffer, 0, quads * 4);
    for (let j = 0; j < h; j++) {
      let i = j * stride;
      for (let q = 0; q < quads; q++, i += 4) {
        const a = px[i];
        const b = px[i + 1];
        const c = px[i + 2];
        const d = px[i + 3];
        if ((((a ^ (a >>> 8)) | (b ^ (b >>> 8)) | (c ^ (c >>> 8)) | (d ^ (d >>> 8))) & 0xffff) !== 0) return false;
        packedRow[q] = (a & 0xff) | ((b & 0xff) << 8) | ((c & 0xff) << 16) | ((d & 0xff) << 24);
      }
      const base = (y + j) * rowBytes + 1 + x;
      rows.set(packedBytes, base);
      for (let k = quads * 4; k < w; k++, i++) {
        const p = px[i];
        if (((p ^ (p >>> 8)) & 0xffff) !== 0) return false;
        rows[base + k] = p & 0xff;
      }
    }
    return true;
  }
  for (let j = 0; j < h; j++) {
    const base = (y + j) * rowBytes + 1 + x;
    for (let k = 0, src = j * stride * 4; k < w; k++, src += 4) {
      const r = rgba[src];
      if (r !== rgba[src + 1] || r !== rgba[src + 2]) return false;
      rows[base + k] = r;
    }
  }
  return true;
}

/** 8-bit greyscale PNG from rows laid out as `greyRowsScratch` describes. */
export const encodeGreyRows = (rows: Buffer, width: number, height: number): Buffer => png(width, height, 8, rows);

/**
 * 8-bit greyscale from opaque RGBA, or null when a pixel has colour (R, G, B differ):
 * the caller then writes an RGB PNG, so nothing is ever lost by taking this path.
 */
export function encodeGreyPngIfGrey(rgba: Uint8Array, width: number, height: number): Buffer | null {
  const rows = greyRowsScratch(width, height);
  return writeGreyBlock(rgba, width, width, height, rows, width, 0, 0) ? encodeGreyRows(rows, width, height) : null;
}

/** 1-bit greyscale; `bits` has one byte per pixel, non-zero for white. */
export function encodePng1Bit(bits: Uint8Array, width: number, height: number): Buffer {
  const rowBytes = Math.ceil(width / 8) + 1;
  const rows = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const base = y * rowBytes + 1;
    const src = y * width;
    for (let x = 0; x < width; x++) if (bits[src + x]) rows[base + (x >> 3)] |= 0x80 >> (x & 7);
  }
  return png(width, height, 1, rows);
}
