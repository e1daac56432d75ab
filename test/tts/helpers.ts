import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { createTtsApp, type TtsApp, type TtsAppOptions } from "../../tts/app";
import { loadConfig } from "../../tts/config";

export interface RunningTts {
  app: TtsApp;
  /** Service root, e.g. http://127.0.0.1:41234 */
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts the service on port 0 with a fresh data folder. `env` takes the same variables as
 * `npm run tts` (`TTS_HOST` too: the service listens where it says, 127.0.0.1 by default, and
 * is called on 127.0.0.1); one eSpeak worker keeps test start-up short. Errors and warnings
 * are dropped unless `options` takes them.
 */
export async function startTts(env: Record<string, string> = {}, dataDir?: string, options: TtsAppOptions = {}): Promise<RunningTts> {
  const dir = dataDir ?? mkdtempSync(path.join(os.tmpdir(), "tts-test-"));
  const config = loadConfig({ TTS_ESPEAK_WORKERS: "1", ...env, TTS_DATA_DIR: dir, TTS_PORT: "0" });
  const app = await createTtsApp(config, { logError: () => undefined, logWarning: () => undefined, ...options });
  await new Promise<void>((resolve) => app.server.listen(0, config.host, resolve));
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    dataDir: dir,
    async close() {
      await app.close();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

/** int16 LE bytes to floats in [-1, 1]. */
export function pcmSamples(bytes: Buffer | Uint8Array): Float32Array {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(buf.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = buf.readInt16LE(i * 2) / 32768;
  return out;
}

export interface Loudness {
  rms: number;
  /** Share of samples louder than -26 dBFS. */
  activeShare: number;
}

export function loudness(samples: Float32Array): Loudness {
  let sum = 0;
  let active = 0;
  for (const s of samples) {
    sum += s * s;
    if (Math.abs(s) > 0.05) active++;
  }
  return { rms: Math.sqrt(sum / Math.max(1, samples.length)), activeShare: active / Math.max(1, samples.length) };
}

/**
 * Speech, not silence or a click: enough energy and enough loud samples. eSpeak at normal speed
 * reads English at 12-18 characters a second; the bounds below leave room for pauses and accent.
 */
export function assertSpeechLike(samples: Float32Array, rate: number, chars: number, speed = 1): void {
  const seconds = samples.length / rate;
  const level = loudness(samples);
  const min = chars / 30 / speed;
  const max = chars / 6 / speed + 1;
  if (seconds < min || seconds > max) throw new Error(`duration ${seconds.toFixed(2)} s not within ${min.toFixed(2)}-${max.toFixed(2)} s for ${chars} chars`);
  if (level.rms < 0.02) throw new Error(`too quiet: rms ${level.rms.toFixed(4)}`);
  if (level.activeShare < 0.1) throw new Error(`mostly silent: ${(level.activeShare * 100).toFixed(1)}% active`);
}

/** A WAV file (16-bit PCM mono) with a tone that swells and fades, like a voice recording. */
export function referenceWav(seconds: number, rate = 16000, amplitude = 0.4): Buffer {
  const frames = Math.round(seconds * rate);
  const data = Buffer.alloc(frames * 2);
  for (let i = 0; i < frames; i++) {
    const t = i / rate;
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 0.7 * t);
    data.writeInt16LE(Math.round(amplitude * envelope * 32767 * Math.sin(2 * Math.PI * 180 * t)), i * 2);
  }
  return wavOf(data, rate);
}

/** 16-bit mono PCM (little-endian) in a WAV file's RIFF header. */
export function wavOf(data: Buffer, rate: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
