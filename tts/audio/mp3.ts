import { readFileSync } from "node:fs";
import { createEncoder } from "wasm-media-encoders";
import type { AudioEncoder } from "./encoder";
import { PCM_SAMPLE_RATE, int16ToFloat, pcmBytesToInt16 } from "./pcm";

/** 64 kbit/s CBR mono is transparent for synthetic speech and small enough for a hub speaker. */
const MP3_BITRATE = 64;

let lameWasm: Buffer | null = null;

/** The LAME binary is read once per process; each response instantiates its own encoder. */
function lameBinary(): Buffer {
  lameWasm ??= readFileSync(require.resolve("wasm-media-encoders/wasm/mp3"));
  return lameWasm;
}

export async function createMp3Encoder(): Promise<AudioEncoder> {
  const encoder = await createEncoder("audio/mpeg", lameBinary());
  encoder.configure({ sampleRate: PCM_SAMPLE_RATE, channels: 1, bitrate: MP3_BITRATE });
  const parts: Buffer[] = [];
  return {
    push(pcm) {
      // The returned view is owned by the encoder and reused on the next call: copy it.
      parts.push(Buffer.from(encoder.encode([int16ToFloat(pcmBytesToInt16(pcm))])));
    },
    finish() {
      parts.push(Buffer.from(encoder.finalize()));
      return Buffer.concat(parts);
    },
  };
}
