import { PCM_CHANNELS, PCM_SAMPLE_RATE } from "./pcm";

/** A canonical 44-byte RIFF header for 16-bit PCM. */
export function wavHeader(dataBytes: number, sampleRate = PCM_SAMPLE_RATE, channels = PCM_CHANNELS): Buffer {
  const header = Buffer.alloc(44);
  const blockAlign = channels * 2;
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export interface WavInfo {
  format: "pcm" | "float";
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataOffset: number;
  dataBytes: number;
  frames: number;
  durationSeconds: number;
}

export class WavFormatError extends Error {}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/**
 * Walks the RIFF chunks of a WAV file and returns its layout. Reference samples come from phones
 * and editors that add LIST, fact or JUNK chunks and use WAVE_FORMAT_EXTENSIBLE, so chunks are
 * searched rather than assumed at fixed offsets.
 */
export function parseWav(bytes: Buffer): WavInfo {
  if (bytes.length < 12 || bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") {
    throw new WavFormatError("not a RIFF/WAVE file");
  }
  let fmt: Omit<WavInfo, "dataOffset" | "dataBytes" | "frames" | "durationSeconds"> | null = null;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt ") fmt = parseFmt(bytes, body, size);
    if (id === "data") {
      if (!fmt) throw new WavFormatError("data chunk before fmt chunk");
      // Streaming writers leave the size as 0 or 0xFFFFFFFF; the rest of the file is the data then.
      const available = bytes.length - body;
      const dataBytes = size === 0 || size > available ? available : size;
      const frameBytes = (fmt.bitsPerSample / 8) * fmt.channels;
      const frames = Math.floor(dataBytes / frameBytes);
      return { ...fmt, dataOffset: body, dataBytes, frames, durationSeconds: frames / fmt.sampleRate };
    }
    offset = body + size + (size % 2);
  }
  throw new WavFormatError("no data chunk");
}

function parseFmt(bytes: Buffer, body: number, size: number): Omit<WavInfo, "dataOffset" | "dataBytes" | "frames" | "durationSeconds"> {
  if (size < 16) throw new WavFormatError("fmt chunk too short");
  let tag = bytes.readUInt16LE(body);
  const channels = bytes.readUInt16LE(body + 2);
  const sampleRate = bytes.readUInt32LE(body + 4);
  const bitsPerSample = bytes.readUInt16LE(body + 14);
  if (tag === WAVE_FORMAT_EXTENSIBLE && size >= 26) tag = bytes.readUInt16LE(body + 24);
  if (tag !== WAVE_FORMAT_PCM && tag !== WAVE_FORMAT_FLOAT) throw new WavFormatError(`unsupported WAV encoding ${tag}`);
  if (channels < 1 || sampleRate < 1) throw new WavFormatError("invalid channel count or sample rate");
  if (![8, 16, 24, 32].includes(bitsPerSample)) throw new WavFormatError(`unsupported bit depth ${bitsPerSample}`);
  if (tag === WAVE_FORMAT_FLOAT && bitsPerSample !== 32) throw new WavFormatError("float WAV must be 32-bit");
  return { format: tag === WAVE_FORMAT_FLOAT ? "float" : "pcm", channels, sampleRate, bitsPerSample };
}

/** Decodes the first channel to floats in [-1, 1], which is all a loudness check needs. */
export function readWavChannel(bytes: Buffer, info: WavInfo): Float32Array {
  const out = new Float32Array(info.frames);
  const width = info.bitsPerSample / 8;
  const stride = width * info.channels;
  for (let i = 0; i < info.frames; i++) {
    const at = info.dataOffset + i * stride;
    out[i] = readSample(bytes, at, info);
  }
  return out;
}

function readSample(bytes: Buffer, at: number, info: WavInfo): number {
  if (info.format === "float") return bytes.readFloatLE(at);
  switch (info.bitsPerSample) {
    case 8:
      return (bytes[at] - 128) / 128;
    case 16:
      return bytes.readInt16LE(at) / 32768;
    case 24:
      return bytes.readIntLE(at, 3) / 8388608;
    default:
      return bytes.readInt32LE(at) / 2147483648;
  }
}
