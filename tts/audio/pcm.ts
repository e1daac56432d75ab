/**
 * The service's one wire format for audio in flight: signed 16-bit little-endian, mono, 24 kHz.
 * Every engine delivers this format, so streaming, encoding and proxying never need to know
 * which engine produced a chunk.
 */
export const PCM_SAMPLE_RATE = 24000;
export const PCM_SAMPLE_WIDTH_BITS = 16;
export const PCM_CHANNELS = 1;
export const PCM_BYTES_PER_SAMPLE = 2;

/** Float samples are clipped to [-1, 1] first, so loud engine output saturates instead of wrapping. */
export function floatToInt16Buffer(samples: Float32Array): Buffer {
  // Not from the shared pool: worker threads transfer this memory to the main thread.
  const out = Buffer.allocUnsafeSlow(samples.length * PCM_BYTES_PER_SAMPLE);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    const clipped = s > 1 ? 1 : s < -1 ? -1 : s;
    out.writeInt16LE(clipped < 0 ? Math.round(clipped * 32768) : Math.round(clipped * 32767), i * 2);
  }
  return out;
}

export function int16ToFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i] / 32768;
  return out;
}

/** Reads int16 LE bytes; the byte length must be even (see PcmByteAligner for network input). */
export function pcmBytesToInt16(bytes: Buffer): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
  return out;
}

/**
 * Network reads split samples anywhere; this keeps a dangling odd byte for the next read so no
 * chunk ever carries half a sample.
 */
export class PcmByteAligner {
  private carry: Buffer | null = null;

  push(chunk: Buffer): Buffer {
    const joined = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    const usable = joined.length & ~1;
    this.carry = usable < joined.length ? Buffer.from(joined.subarray(usable)) : null;
    return joined.subarray(0, usable);
  }
}

/** Slices whole-buffer audio into stream-sized chunks, for engines that cannot stream. */
export function* chunkPcm(pcm: Buffer, chunkBytes: number): Generator<Buffer> {
  const size = Math.max(2, chunkBytes & ~1);
  for (let offset = 0; offset < pcm.length; offset += size) yield pcm.subarray(offset, offset + size);
}
