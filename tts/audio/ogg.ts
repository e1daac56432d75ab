/**
 * Minimal Ogg page writer (RFC 3533) for one logical stream. Only what Ogg Opus needs: pages of
 * whole packets, lacing, granule positions and the Ogg CRC-32 (polynomial 0x04C11DB7, unreflected).
 */
const CRC_TABLE = buildCrcTable();

export const OGG_FLAG_BOS = 0x02;
export const OGG_FLAG_EOS = 0x04;

export class OggStreamWriter {
  private sequence = 0;
  private readonly pages: Buffer[] = [];

  constructor(private readonly serial: number) {}

  /** Writes one page holding `packets` entirely; the caller keeps pages under 255 lacing values. */
  writePage(packets: Buffer[], granule: bigint, flags: number): void {
    const lacing: number[] = [];
    for (const packet of packets) {
      let remaining = packet.length;
      while (remaining >= 255) {
        lacing.push(255);
        remaining -= 255;
      }
      lacing.push(remaining);
    }
    if (lacing.length > 255) throw new RangeError("too many packets for one Ogg page");
    const header = Buffer.alloc(27 + lacing.length);
    header.write("OggS", 0, "ascii");
    header[4] = 0;
    header[5] = flags;
    header.writeBigUInt64LE(granule, 6);
    header.writeUInt32LE(this.serial, 14);
    header.writeUInt32LE(this.sequence++, 18);
    header[26] = lacing.length;
    lacing.forEach((value, i) => (header[27 + i] = value));
    const page = Buffer.concat([header, ...packets]);
    page.writeUInt32LE(oggCrc(page), 22);
    this.pages.push(page);
  }

  /** Lacing values a packet of this size takes, to plan page fill. */
  static lacingCount(packetBytes: number): number {
    return Math.floor(packetBytes / 255) + 1;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.pages);
  }
}

export function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]) & 0xff]) >>> 0;
  return crc >>> 0;
}

function buildCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
}
