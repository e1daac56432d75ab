import OpusScript from "opusscript";
import type { AudioEncoder } from "./encoder";
import { OGG_FLAG_BOS, OGG_FLAG_EOS, OggStreamWriter } from "./ogg";
import { PCM_BYTES_PER_SAMPLE, PCM_SAMPLE_RATE } from "./pcm";

/** 20 ms frames: Opus's default, the best quality per bit for speech. */
const FRAME_SAMPLES = PCM_SAMPLE_RATE / 50;
const FRAME_BYTES = FRAME_SAMPLES * PCM_BYTES_PER_SAMPLE;
/** Ogg Opus granule positions always count 48 kHz samples (RFC 7845 section 4). */
const GRANULE_PER_SAMPLE = 48000 / PCM_SAMPLE_RATE;
/** libopus encoder lookahead at 48 kHz (2.5 ms + 4 ms delay compensation), skipped by decoders. */
const PRE_SKIP = 312;
const OPUS_SET_BITRATE = 4002;
const BITRATE = 32000;
/** About one second of packets per page keeps seeking granular and overhead small. */
const PACKETS_PER_PAGE = 50;

/** Ogg Opus (RFC 7845) from libopus compiled by Emscripten (opusscript); the Ogg layer is ours. */
export function createOpusEncoder(): AudioEncoder {
  const opus = new OpusScript(PCM_SAMPLE_RATE, 1, OpusScript.Application.VOIP);
  opus.encoderCTL(OPUS_SET_BITRATE, BITRATE);
  const ogg = new OggStreamWriter((Math.random() * 0xffffffff) >>> 0);
  ogg.writePage([opusHead()], 0n, OGG_FLAG_BOS);
  ogg.writePage([opusTags()], 0n, 0);

  let pending = Buffer.alloc(0);
  let page: Buffer[] = [];
  let lacing = 0;
  let samplesIn = 0;
  let samplesEncoded = 0;

  const flushPage = (flags: number, granule: bigint) => {
    ogg.writePage(page, granule, flags);
    page = [];
    lacing = 0;
  };
  const encodeFrame = (frame: Buffer) => {
    // opusscript returns a view into its own heap: copy before the next call overwrites it.
    const packet = Buffer.from(opus.encode(frame, FRAME_SAMPLES));
    samplesEncoded += FRAME_SAMPLES;
    if (page.length >= PACKETS_PER_PAGE || lacing + OggStreamWriter.lacingCount(packet.length) > 255) {
      flushPage(0, granuleAt(samplesEncoded - FRAME_SAMPLES));
    }
    page.push(packet);
    lacing += OggStreamWriter.lacingCount(packet.length);
  };

  return {
    push(pcm) {
      samplesIn += pcm.length / PCM_BYTES_PER_SAMPLE;
      const joined = pending.length > 0 ? Buffer.concat([pending, pcm]) : pcm;
      let offset = 0;
      for (; offset + FRAME_BYTES <= joined.length; offset += FRAME_BYTES) {
        encodeFrame(joined.subarray(offset, offset + FRAME_BYTES));
      }
      pending = Buffer.from(joined.subarray(offset));
    },
    finish() {
      // Pad the last frame with silence and push enough extra to flush the encoder's lookahead;
      // the final granule position tells decoders where the real audio ends.
      const tail = Buffer.alloc(FRAME_BYTES);
      pending.copy(tail);
      encodeFrame(tail);
      encodeFrame(Buffer.alloc(FRAME_BYTES));
      flushPage(OGG_FLAG_EOS, granuleAt(samplesIn));
      opus.delete();
      return ogg.toBuffer();
    },
  };
}

function granuleAt(samples: number): bigint {
  return BigInt(PRE_SKIP + samples * GRANULE_PER_SAMPLE);
}

function opusHead(): Buffer {
  const head = Buffer.alloc(19);
  head.write("OpusHead", 0, "ascii");
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(PRE_SKIP, 10);
  head.writeUInt32LE(PCM_SAMPLE_RATE, 12);
  head.writeInt16LE(0, 16);
  head[18] = 0;
  return head;
}

function opusTags(): Buffer {
  const vendor = Buffer.from("careflow-tts", "utf8");
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write("OpusTags", 0, "ascii");
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length);
  return tags;
}
