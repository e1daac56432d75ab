import libFlacFactory from "libflacjs";
import { Encoder } from "libflacjs/lib/encoder";
import type { AudioEncoder } from "./encoder";
import { PCM_SAMPLE_RATE, pcmBytesToInt16 } from "./pcm";

type Flac = ReturnType<typeof libFlacFactory>;

/** Level 5 is libFLAC's default balance; speech compresses to about half of raw PCM. */
const COMPRESSION_LEVEL = 5;

let ready: Promise<Flac> | null = null;

/**
 * libflac.js (libFLAC compiled by Emscripten), loaded once per process. The asm.js build is used
 * because its WASM build loads the .wasm with `fetch()` on Node 18+, which fails for a file path.
 */
function flacLibrary(): Promise<Flac> {
  ready ??= new Promise<Flac>((resolve) => {
    const flac = libFlacFactory();
    if (flac.isReady()) resolve(flac);
    else flac.on("ready", () => resolve(flac));
  });
  return ready;
}

export async function createFlacEncoder(): Promise<AudioEncoder> {
  const flac = await flacLibrary();
  const encoder = new Encoder(flac, {
    sampleRate: PCM_SAMPLE_RATE,
    channels: 1,
    bitsPerSample: 16,
    compression: COMPRESSION_LEVEL,
    verify: false,
  });
  return {
    push(pcm) {
      if (pcm.length > 0) encoder.encode([Int32Array.from(pcmBytesToInt16(pcm))]);
    },
    finish() {
      encoder.encode();
      const bytes = Buffer.from(encoder.getSamples());
      encoder.destroy();
      return bytes;
    },
  };
}
