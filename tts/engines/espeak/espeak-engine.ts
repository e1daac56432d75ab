import { splitSentences } from "../../text/sentences";
import { EngineUnavailableError } from "../../errors";
import { AsyncQueue } from "../async-queue";
import type { EngineHealth, ResolvedVoice, SpeechEngine, SynthesisRequest, Voice } from "../engine";
import { ESPEAK_MAX_RATE, ESPEAK_MIN_RATE, ESPEAK_NORMAL_RATE } from "./espeak-module";
import { EspeakPool } from "./espeak-pool";
import { espeakNameOf, espeakVoices, resolveEspeakVoice } from "./espeak-voices";

/**
 * The local engine: eSpeak NG in WASM, needing nothing beyond `npm install`. It streams natively:
 * each sentence goes to a worker, which posts audio while eSpeak is still speaking it.
 */
export class EspeakEngine implements SpeechEngine {
  readonly id = "espeak" as const;
  readonly nativeStreaming = true;
  readonly ownedBy = "espeak-ng";

  private constructor(
    private readonly pool: EspeakPool,
    private readonly defaultVoice: string,
  ) {}

  static async start(options: { workers: number; defaultVoice: string }): Promise<EspeakEngine> {
    return new EspeakEngine(await EspeakPool.start(options.workers), options.defaultVoice);
  }

  voices(): Voice[] {
    // A voice is the default of its language when a request naming only that language gets it.
    return espeakVoices().map((voice) => ({ ...voice, is_default: this.resolveVoice(undefined, voice.language).id === voice.id }));
  }

  resolveVoice(voice: string | undefined, language: string | undefined): ResolvedVoice {
    return resolveEspeakVoice(voice, language, this.defaultVoice);
  }

  async start(request: SynthesisRequest): Promise<AsyncIterable<Buffer>> {
    if (this.pool.workerCount === 0) throw new EngineUnavailableError(`espeak has no worker (${this.pool.error ?? "starting"})`);
    const voice = espeakNameOf(request.voice.id);
    const wanted = ESPEAK_NORMAL_RATE * request.speed;
    const rate = Math.round(Math.min(ESPEAK_MAX_RATE, Math.max(ESPEAK_MIN_RATE, wanted)));
    // Speeds beyond eSpeak's own range are finished by time-stretching in the worker.
    const tempo = Math.abs(wanted / rate - 1) < 0.01 ? 1 : wanted / rate;
    return this.speak(splitSentences(request.text), { voice, rate, tempo }, request.signal);
  }

  health(): EngineHealth {
    return {
      available: this.pool.workerCount > 0,
      streaming: true,
      workers: this.pool.workerCount,
      detail: `${this.pool.busy} busy, ${this.pool.queued} sentences queued${this.pool.error ? `; last error: ${this.pool.error}` : ""}`,
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async *speak(sentences: string[], settings: { voice: string; rate: number; tempo: number }, signal: AbortSignal): AsyncGenerator<Buffer> {
    for (const sentence of sentences) {
      if (signal.aborted) return;
      const chunks = new AsyncQueue<Buffer>();
      this.pool.run({ ...settings, text: sentence, signal, onChunk: (pcm) => chunks.push(pcm) }).then(
        () => chunks.end(),
        (err: Error) => chunks.fail(err),
      );
      yield* chunks;
    }
  }
}
