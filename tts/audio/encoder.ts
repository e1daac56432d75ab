/**
 * One encoder per response: it receives wire-format PCM chunks (int16 LE, 24 kHz, mono) as the
 * engine produces them, so encoding work is spread over the synthesis instead of landing in one
 * block at the end.
 */
export interface AudioEncoder {
  push(pcm: Buffer): void;
  finish(): Buffer;
}
