import { ValidationError } from "../errors";
import { WavFormatError, parseWav, readWavChannel } from "../audio/wav";

/** The spec's limits for a cloning reference sample. */
export const MIN_SAMPLE_SECONDS = 10;
export const MAX_SAMPLE_SECONDS = 30;
/** Below this peak level a "recording" is silence or a muted microphone. */
const SILENCE_PEAK = 0.01;

export interface ReferenceSampleInfo {
  durationSeconds: number;
  sampleRate: number;
}

/**
 * Checks an uploaded reference sample by decoding it: a WAV file of 10-30 seconds with audible
 * content. Length is measured from the audio, never trusted from a header field or file size.
 */
export function checkReferenceSample(bytes: Buffer): ReferenceSampleInfo {
  let info;
  try {
    info = parseWav(bytes);
  } catch (err) {
    const reason = err instanceof WavFormatError ? err.message : "unreadable";
    throw new ValidationError("file", `reference sample must be a WAV file (${reason})`);
  }
  const seconds = info.durationSeconds;
  if (seconds < MIN_SAMPLE_SECONDS || seconds > MAX_SAMPLE_SECONDS) {
    throw new ValidationError("file", `reference sample is ${seconds.toFixed(1)} s long; it must be ${MIN_SAMPLE_SECONDS}-${MAX_SAMPLE_SECONDS} s`);
  }
  const samples = readWavChannel(bytes, info);
  let peak = 0;
  for (let i = 0; i < samples.length; i++) peak = Math.max(peak, Math.abs(samples[i]));
  if (peak < SILENCE_PEAK) throw new ValidationError("file", "reference sample is silent");
  return { durationSeconds: seconds, sampleRate: info.sampleRate };
}
