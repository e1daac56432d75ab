/** The engine names of the spec plus the local engine that always works. */
export const ENGINE_IDS = ["espeak", "svara", "parler", "cloning", "seamless", "remote_tts"] as const;
export type EngineId = (typeof ENGINE_IDS)[number];

export function isEngineId(value: string): value is EngineId {
  return (ENGINE_IDS as readonly string[]).includes(value);
}

/** A voice as `GET /api/v1/voices` lists it. */
export interface Voice {
  id: string;
  name: string;
  engine: EngineId;
  language: string;
  supports_cloning: boolean;
  sample_rate: number;
  is_default: boolean;
}

/** The voice an engine will actually use for one request. */
export interface ResolvedVoice {
  id: string;
  language: string;
}

export interface SynthesisRequest {
  text: string;
  voice: ResolvedVoice;
  speed: number;
  /** True when the caller streams; a proxying engine then asks its backend to stream too. */
  stream: boolean;
  signal: AbortSignal;
}

export interface EngineHealth {
  available: boolean;
  streaming: boolean;
  /** Synthesis threads of a local engine. */
  workers?: number;
  detail?: string;
}

/**
 * Every engine yields the wire format (int16 LE, 24 kHz, mono) in chunks as it produces them.
 * `start` settles only once the engine knows it can serve the request, and rejects with
 * EngineUnavailableError otherwise, so the caller can still fall back before sending headers.
 */
export interface SpeechEngine {
  readonly id: EngineId;
  /** Produces audio progressively; engines that cannot synthesise first, then chunk. */
  readonly nativeStreaming: boolean;
  readonly ownedBy: string;
  voices(): Voice[];
  /** Picks the voice for a request; throws ValidationError naming `voice` or `language`. */
  resolveVoice(voice: string | undefined, language: string | undefined): ResolvedVoice;
  start(request: SynthesisRequest): Promise<AsyncIterable<Buffer>>;
  health(): EngineHealth;
  close(): Promise<void>;
}
