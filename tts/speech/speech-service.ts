import { isEngineId, type EngineId, type ResolvedVoice, type SpeechEngine } from "../engines/engine";
import type { EngineRegistry } from "../engines/registry";
import { EngineUnavailableError, NoEngineError, TtsError, ValidationError } from "../errors";
import type { VoiceStore } from "../voices/voice-store";
import type { SpeechRequest } from "./speech-request";

/** Audio on its way, with what produced it. */
export interface OpenedSpeech {
  engine: EngineId;
  voice: ResolvedVoice;
  /** Why another engine than the requested one speaks; absent when none was needed. */
  fallback?: string;
  audio: AsyncIterable<Buffer>;
}

interface Attempt {
  engine: SpeechEngine;
  voice: ResolvedVoice;
  note?: string;
}

/**
 * Chooses the engine and voice for a request and starts synthesis. An unknown or unconfigured
 * model, or an engine that turns out to be down, falls back to the default engine and then the
 * local one, and the reason travels with the audio; a bad field is an error, never a fallback.
 */
export class SpeechService {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly customVoices: VoiceStore,
  ) {}

  async open(request: SpeechRequest, signal: AbortSignal): Promise<OpenedSpeech> {
    let attempt = this.firstAttempt(request);
    const notes: string[] = [];
    const tried = new Set<EngineId>();
    for (;;) {
      if (attempt.note) notes.push(attempt.note);
      tried.add(attempt.engine.id);
      try {
        const audio = await attempt.engine.start({
          text: request.input,
          voice: attempt.voice,
          speed: request.speed,
          stream: request.stream,
          signal,
        });
        return { engine: attempt.engine.id, voice: attempt.voice, audio, ...(notes.length ? { fallback: notes.join("; ") } : {}) };
      } catch (err) {
        if (!(err instanceof EngineUnavailableError)) throw err;
        const next = this.engines.fallbacksAfter(attempt.engine.id).find((e) => !tried.has(e.id));
        if (!next) throw new NoEngineError(`model: no TTS engine available (${err.message})`);
        attempt = { engine: next, voice: this.lenientVoice(next, request, attempt.voice.language), note: err.message };
      }
    }
  }

  private firstAttempt(request: SpeechRequest): Attempt {
    const custom = request.voice === undefined ? undefined : this.customVoices.get(request.voice);
    if (custom) {
      // A cloned voice exists only on the cloning engine, whatever model was asked for.
      const cloning = this.engines.get("cloning");
      if (!cloning) {
        throw new NoEngineError(`voice: '${custom.voice_id}' is a cloned voice and no cloning engine is configured (set TTS_CLONING_URL)`);
      }
      return { engine: cloning, voice: cloning.resolveVoice(custom.voice_id, request.language) };
    }
    const requested = request.model === undefined ? undefined : request.model;
    const named = requested !== undefined && isEngineId(requested) ? this.engines.get(requested) : undefined;
    if (requested === undefined || named) {
      const engine = named ?? this.defaultEngine();
      return { engine, voice: engine.resolveVoice(request.voice, request.language) };
    }
    const engine = this.defaultEngine();
    const why = isEngineId(requested) ? `${requested} not configured` : `unknown model '${requested}'`;
    return { engine, voice: this.lenientVoice(engine, request, request.language), note: why };
  }

  private defaultEngine(): SpeechEngine {
    const engine = this.engines.defaultEngine;
    if (!engine) throw new NoEngineError("model: no TTS engine available");
    return engine;
  }

  /**
   * On fallback the requested voice usually belongs to another engine: keep it if this engine
   * knows it, otherwise use this engine's voice for the language, otherwise its default.
   */
  private lenientVoice(engine: SpeechEngine, request: SpeechRequest, language: string | undefined): ResolvedVoice {
    const tries: [string | undefined, string | undefined][] = [
      [request.voice, request.language],
      [undefined, request.language ?? (language || undefined)],
      [undefined, undefined],
    ];
    for (const [voice, lang] of tries) {
      try {
        return engine.resolveVoice(voice, lang);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
      }
    }
    throw new TtsError(500, `engine ${engine.id} has no default voice`);
  }
}
