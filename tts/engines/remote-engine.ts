import { PCM_SAMPLE_RATE, PcmByteAligner, chunkPcm, floatToInt16Buffer, int16ToFloat, pcmBytesToInt16 } from "../audio/pcm";
import { StreamingResampler } from "../audio/resample";
import type { RemoteBackendConfig } from "../config";
import { BackendRejectedError, EngineUnavailableError, ValidationError } from "../errors";
import type { CustomVoice } from "../voices/voice-store";
import type { EngineHealth, ResolvedVoice, SpeechEngine, SynthesisRequest, Voice } from "./engine";

/** Custom voices a cloning backend can be handed; only the cloning engine gets one. */
export interface ClonedVoiceSource {
  get(voiceId: string): CustomVoice | undefined;
  readSample(voiceId: string): Promise<Buffer>;
}

/**
 * An engine served by another machine speaking the OpenAI speech API (`POST <url>/audio/speech`).
 * Audio is always requested as `pcm`, so every backend yields the wire format and any response
 * format can still be produced here; a backend's chunks are forwarded as they arrive.
 */
export class RemoteEngine implements SpeechEngine {
  readonly id: RemoteBackendConfig["engine"];
  readonly nativeStreaming: boolean;
  readonly ownedBy: string;
  private lastError: string | undefined;
  /** Custom voices already handed to the cloning backend in this process. */
  private readonly uploaded = new Set<string>();

  constructor(
    private readonly config: RemoteBackendConfig,
    private readonly timeoutMs: number,
    private readonly clonedVoices?: ClonedVoiceSource,
  ) {
    this.id = config.engine;
    this.nativeStreaming = config.nativeStreaming;
    this.ownedBy = new URL(config.url).host;
  }

  voices(): Voice[] {
    return this.config.voices.map((voice, index) => ({
      id: voice.id,
      name: voice.id,
      engine: this.id,
      language: voice.language,
      supports_cloning: this.id === "cloning",
      sample_rate: PCM_SAMPLE_RATE,
      is_default: index === 0,
    }));
  }

  /**
   * With a configured voice list, voices are checked here; without one, the backend is the judge
   * and the voice is passed through (its 4xx comes back to the caller).
   */
  resolveVoice(voice: string | undefined, language: string | undefined): ResolvedVoice {
    const cloned = voice === undefined ? undefined : this.clonedVoices?.get(voice);
    if (cloned) return { id: cloned.voice_id, language: language ?? cloned.language };
    const listed = this.config.voices;
    if (listed.length === 0) return { id: voice ?? "", language: language ?? "" };
    if (voice === undefined) {
      const pick = listed.find((v) => language !== undefined && v.language === language) ?? listed[0];
      return { id: pick.id, language: language ?? pick.language };
    }
    const found = listed.find((v) => v.id === voice);
    if (!found) {
      throw new ValidationError("voice", `unknown voice '${voice}' for engine ${this.id}; see GET /api/v1/voices`);
    }
    return { id: found.id, language: language ?? found.language };
  }

  async start(request: SynthesisRequest): Promise<AsyncIterable<Buffer>> {
    if (this.clonedVoices?.get(request.voice.id)) await this.handOver(request.voice.id, request.signal);
    const response = await this.post(
      new URL(`${this.config.url}/audio/speech`),
      {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: this.config.model,
          input: request.text,
          ...(request.voice.id ? { voice: request.voice.id } : {}),
          response_format: "pcm",
          speed: request.speed,
          ...(request.voice.language ? { language: request.voice.language } : {}),
          ...(request.stream && this.nativeStreaming ? { stream: true } : {}),
        }),
      },
      request.signal,
    );
    const rate = Number(response.headers.get("x-sample-rate")) || this.config.sampleRate;
    const body = response.body;
    if (!body) throw new EngineUnavailableError(`${this.id} sent no audio`);
    // Non-streaming backends are re-chunked into `stream_frame_buffer` frames (210 ms by default).
    return this.nativeStreaming ? toWireFormat(body, rate) : rechunked(body, rate, this.config.streamChunkBytes);
  }

  health(): EngineHealth {
    // Not probed: availability is what the last request found (requests keep trying regardless).
    return {
      available: this.lastError === undefined,
      streaming: this.nativeStreaming,
      ...(this.lastError ? { detail: `last error: ${this.lastError}` } : {}),
    };
  }

  async close(): Promise<void> {}

  forget(voiceId: string): void {
    this.uploaded.delete(voiceId);
  }

  /**
   * A cloning server needs the reference sample before it can speak with a custom voice. It is
   * sent once per process to `/api/v1/voices/upload` on the same host, in the spec's shape; a 409
   * means the server already has it.
   */
  private async handOver(voiceId: string, signal: AbortSignal): Promise<void> {
    const voice = this.clonedVoices?.get(voiceId);
    if (!voice || this.uploaded.has(voiceId)) return;
    const form = new FormData();
    form.set("voice_id", voice.voice_id);
    form.set("name", voice.name);
    form.set("language", voice.language);
    form.set("description", voice.description);
    const sample = await this.clonedVoices!.readSample(voiceId);
    form.set("file", new Blob([new Uint8Array(sample)], { type: "audio/wav" }), `${voiceId}.wav`);
    await this.post(new URL("/api/v1/voices/upload", this.config.url), { body: form }, signal, [409]);
    this.uploaded.add(voiceId);
  }

  /** Network errors, timeouts, 5xx and auth failures mean "unavailable" so the caller falls back. */
  private async post(
    url: URL,
    init: { headers?: Record<string, string>; body: string | FormData },
    signal: AbortSignal,
    okStatuses: number[] = [],
  ): Promise<Response> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    try {
      const headers = { ...init.headers, ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}) };
      const response = await fetch(url, { method: "POST", headers, body: init.body, signal: controller.signal });
      if (response.ok || okStatuses.includes(response.status)) {
        this.lastError = undefined;
        return response;
      }
      const detail = await errorDetail(response);
      if ([400, 413, 422].includes(response.status)) throw new BackendRejectedError(422, `${this.id}: ${detail}`);
      throw this.unavailable(`HTTP ${response.status} ${detail}`);
    } catch (err) {
      if (err instanceof BackendRejectedError || err instanceof EngineUnavailableError) throw err;
      if (signal.aborted) throw err;
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      const timedOut = controller.signal.aborted ? (controller.signal.reason as Error).message : undefined;
      throw this.unavailable(timedOut ?? cause ?? String(err));
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  private unavailable(reason: string): EngineUnavailableError {
    this.lastError = reason;
    return new EngineUnavailableError(`${this.id} unavailable: ${reason}`);
  }
}

async function errorDetail(response: Response): Promise<string> {
  const text = (await response.text().catch(() => "")).slice(0, 300);
  try {
    const parsed = JSON.parse(text) as { detail?: unknown; error?: { message?: unknown } };
    return String(parsed.detail ?? parsed.error?.message ?? text);
  } catch {
    return text;
  }
}

/** Forwards each network read as soon as it arrives, sample-aligned and at 24 kHz. */
async function* toWireFormat(body: ReadableStream<Uint8Array>, rate: number): AsyncGenerator<Buffer> {
  const aligner = new PcmByteAligner();
  const resampler = new StreamingResampler(rate, PCM_SAMPLE_RATE);
  for await (const read of body) {
    const pcm = aligner.push(Buffer.from(read.buffer, read.byteOffset, read.byteLength));
    if (pcm.length === 0) continue;
    yield resampler.isIdentity ? Buffer.from(pcm) : floatToInt16Buffer(resampler.push(int16ToFloat(pcmBytesToInt16(pcm))));
  }
  const tail = resampler.flush();
  if (tail.length > 0) yield floatToInt16Buffer(tail);
}

/** For backends that cannot stream: take the whole answer, then hand it on in even pieces. */
async function* rechunked(body: ReadableStream<Uint8Array>, rate: number, chunkBytes: number): AsyncGenerator<Buffer> {
  const parts: Buffer[] = [];
  for await (const pcm of toWireFormat(body, rate)) parts.push(pcm);
  yield* chunkPcm(Buffer.concat(parts), chunkBytes);
}
