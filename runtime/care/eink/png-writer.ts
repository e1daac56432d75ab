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

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data, zlib.crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

function png(width: number, height: number, bitDepth: 1 | 8, rows: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = 0; // greyscale; bytes 10-12: deflate, adaptive filtering, no interlace
  // Run-length deflate at level 1: a card is long runs of white with short runs of text, so
  // RLE finds nearly everything level 3's string matching does (a card's file ~10 % larger)
  // in a quarter of the time (issue 29: it was a fifth of a render).
  const idat = zlib.deflateSync(rows, { level: 1, strategy: zlib.constants.Z_RLE });
  return Buffer.concat([SIGNATURE, chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", Buffer.alloc(0))]);
}

// The rows of the last size written, reused: a fresh 384 kB buffer per card was mostly the
// kernel zeroing new pages (issue 29). Safe because a card is written synchronously, and
// every byte is written each time (filter bytes stay 0, every pixel is set).
let scratch: Buffer | undefined;
const scratchRows = (bytes: number): Buffer => (scratch?.length === bytes ? scratch : (scratch = Buffer.alloc(bytes)));

/**
 * 8-bit greyscale from opaque RGBA, or null when a pixel has colour (R, G, B differ):
 * the caller then writes an RGB PNG, so nothing is ever lost by taking this path.
 */
export function encodeGreyPngIfGrey(rgba: Uint8Array, width: number, height: number): Buffer | null {
  const rowBytes = width + 1; // each row: filter byte 0 ("none"), then the pixels
  const rows = scratchRows(rowBytes * height);
  if (LITTLE_ENDIAN && rgba.byteOffset % 4 === 0) {
    // One 32-bit read per pixel (little-endian A B G R): R == G == B when the low 16 bits
    // of (p ^ (p >>> 8)) are zero.
    const px = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height);
    for (let y = 0, i = 0; y < height; y++) {
      const base = y * rowBytes + 1;
      for (let x = 0; x < width; x++, i++) {
        const p = px[i];
        if (((p ^ (p >>> 8)) & 0xffff) !== 0) return null;
        rows[base + x] = p & 0xff;
      }
    }
    return png(width, height, 8, rows);
  }
  for (let y = 0, src = 0; y < height; y++) {
    const base = y * rowBytes + 1;
    for (let x = 0; x < width; x++, src += 4) {
      const r = rgba[src];
      if (r !== rgba[src + 1] || r !== rgba[src + 2]) return null;
      rows[base + x] = r;
    }
  }
  return png(width, height, 8, rows);
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
