import os from "node:os";
import path from "node:path";
import { defaultEspeakVoiceFor, isEspeakVoice } from "./engines/espeak/espeak-voices";
import { isEngineId, type EngineId } from "./engines/engine";

/** The engines that run on another server the household operates. */
export const REMOTE_ENGINE_IDS = ["svara", "parler", "cloning", "seamless", "remote_tts"] as const;
export type RemoteEngineId = (typeof REMOTE_ENGINE_IDS)[number];

/** From the spec: svara, parler and cloning stream token by token, seamless does not. */
const NATIVE_STREAMING: Record<RemoteEngineId, boolean> = {
  svara: true,
  parler: true,
  cloning: true,
  seamless: false,
  remote_tts: true,
};

export interface RemoteVoiceConfig {
  id: string;
  language: string;
}

export interface RemoteBackendConfig {
  engine: RemoteEngineId;
  /** OpenAI-style base URL, e.g. `http://gpu-box:8880/v1`; speech is at `<url>/audio/speech`. */
  url: string;
  apiKey?: string;
  /** The `model` sent to the backend; defaults to the engine's own name. */
  model: string;
  voices: RemoteVoiceConfig[];
  /** Sample rate of the backend's `pcm` output, when it does not say in `X-Sample-Rate`. */
  sampleRate: number;
  nativeStreaming: boolean;
  /**
   * A backend that cannot stream is handed on in pieces of this many bytes: the spec's
   * `stream_frame_buffer` frames of 10 ms (TTS_STREAM_FRAME_BUFFER, default 21: 210 ms).
   */
  streamChunkBytes: number;
}

export interface TtsConfig {
  port: number;
  /** Where to listen; `127.0.0.1` unless `TTS_HOST` says otherwise. */
  host: string;
  dataDir: string;
  /**
   * When set, every route but /health needs `Authorization: Bearer <key>` or `X-API-Key`. When
   * not set and the service listens on a network address, only GET and HEAD are served.
   */
  apiKey?: string;
  defaultModel: EngineId;
  /** Built-in voice used when a request names none (an eSpeak voice id). */
  defaultVoice: string;
  espeakWorkers: number;
  /** How long a backend may take to answer with headers before the request falls back. */
  remoteTimeoutMs: number;
  backends: RemoteBackendConfig[];
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): TtsConfig {
  const defaultModel = env.TTS_DEFAULT_MODEL?.trim() || "espeak";
  if (!isEngineId(defaultModel)) throw new ConfigError(`TTS_DEFAULT_MODEL: unknown engine '${defaultModel}'`);
  return {
    port: integer(env, "TTS_PORT", 8090, 0, 65535),
    // This machine only unless the operator opens it up (TTS_HOST=0.0.0.0, with TTS_API_KEY).
    host: env.TTS_HOST?.trim() || "127.0.0.1",
    dataDir: path.resolve(env.TTS_DATA_DIR?.trim() || "./data/tts"),
    apiKey: env.TTS_API_KEY?.trim() || undefined,
    defaultModel,
    defaultVoice: defaultVoice(env),
    // Synthesis is CPU-bound: one eSpeak worker per core, leaving one core to the HTTP thread and
    // the encoders (docs/tts.md has the measurements behind this).
    espeakWorkers: integer(env, "TTS_ESPEAK_WORKERS", Math.max(1, os.availableParallelism() - 1), 1, 64),
    remoteTimeoutMs: integer(env, "TTS_REMOTE_TIMEOUT_MS", 10000, 100, 600000),
    backends: REMOTE_ENGINE_IDS.flatMap((engine) => backend(env, engine, streamChunkBytes(env))),
  };
}

function defaultVoice(env: Env): string {
  const voice = env.TTS_DEFAULT_VOICE?.trim();
  if (voice) {
    if (!isEspeakVoice(voice)) throw new ConfigError(`TTS_DEFAULT_VOICE: '${voice}' is not a built-in voice`);
    return voice;
  }
  const language = env.TTS_DEFAULT_LANGUAGE?.trim() || "en-us";
  const fromLanguage = defaultEspeakVoiceFor(language);
  if (!fromLanguage) throw new ConfigError(`TTS_DEFAULT_LANGUAGE: '${language}' has no built-in voice`);
  return fromLanguage;
}

/** `TTS_SVARA_URL`, `TTS_SVARA_API_KEY`, ... ; an engine without a URL is not configured. */
function backend(env: Env, engine: RemoteEngineId, chunkBytes: number): RemoteBackendConfig[] {
  const prefix = `TTS_${engine.toUpperCase()}_`;
  const url = env[`${prefix}URL`]?.trim();
  if (!url) return [];
  try {
    new URL(url);
  } catch {
    throw new ConfigError(`${prefix}URL: not a URL: ${url}`);
  }
  return [
    {
      engine,
      url: url.replace(/\/+$/, ""),
      apiKey: env[`${prefix}API_KEY`]?.trim() || undefined,
      model: env[`${prefix}MODEL`]?.trim() || engine,
      voices: voiceList(env[`${prefix}VOICES`]),
      sampleRate: integer(env, `${prefix}SAMPLE_RATE`, 24000, 8000, 192000),
      nativeStreaming: NATIVE_STREAMING[engine],
      streamChunkBytes: chunkBytes,
    },
  ];
}

/** The spec's svara frame: 7 tokens, about 10 ms of audio; a streamed batch is `stream_frame_buffer` of them. */
export const FRAME_MS = 10;

/** TTS_STREAM_FRAME_BUFFER frames (default 21, the spec's) as bytes of the wire format (int16, 24 kHz). */
function streamChunkBytes(env: Env): number {
  const frames = integer(env, "TTS_STREAM_FRAME_BUFFER", 21, 1, 1000);
  return ((24000 * FRAME_MS) / 1000) * frames * 2;
}

/** `alloy, priya:hi, arjun:hi` — a voice id with an optional language. */
function voiceList(value: string | undefined): RemoteVoiceConfig[] {
  return (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [id, language] = entry.split(":").map((part) => part.trim());
      return { id, language: language || "en" };
    });
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name}: expected an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}
