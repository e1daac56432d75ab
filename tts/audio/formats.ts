import type { AudioEncoder } from "./encoder";
import { createFlacEncoder } from "./flac";
import { createMp3Encoder } from "./mp3";
import { createOpusEncoder } from "./opus";
import { PCM_SAMPLE_RATE } from "./pcm";
import { wavHeader } from "./wav";

export const RESPONSE_FORMATS = ["mp3", "wav", "opus", "flac", "pcm"] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

export const CONTENT_TYPES: Record<ResponseFormat, string> = {
  mp3: "audio/mpeg",
  wav: "audio/wav",
  opus: "audio/ogg; codecs=opus",
  flac: "audio/flac",
  pcm: "audio/pcm",
};

export function isResponseFormat(value: string): value is ResponseFormat {
  return (RESPONSE_FORMATS as readonly string[]).includes(value);
}

export async function createEncoder(format: ResponseFormat): Promise<AudioEncoder> {
  switch (format) {
    case "mp3":
      return createMp3Encoder();
    case "flac":
      return createFlacEncoder();
    case "opus":
      return createOpusEncoder();
    case "wav":
      return collectingEncoder((pcm) => Buffer.concat([wavHeader(pcm.length, PCM_SAMPLE_RATE), pcm]));
    case "pcm":
      return collectingEncoder((pcm) => pcm);
  }
}

function collectingEncoder(wrap: (pcm: Buffer) => Buffer): AudioEncoder {
  const parts: Buffer[] = [];
  return {
    push(pcm) {
      parts.push(pcm);
    },
    finish() {
      return wrap(Buffer.concat(parts));
    },
  };
}
