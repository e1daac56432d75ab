/**
 * The household's text-to-speech service (`POST {tts.url}/v1/audio/speech`, docs/tts.md) as the
 * hub's speakers and the web app use it: a whole clip (MP3 for a speaker or the app's file
 * mode), or raw PCM streamed while it is made (int16 LE, mono, `X-Sample-Rate`).
 */
import type { ServiceAnswer } from "../../../vocabulary/answers";
import type { PlatformContext } from "../../platform/context";
import { describeFetchFailure, reportServiceCall } from "../../platform/health/service-calls";
import { seniorLanguage } from "../persons/senior-language";

export interface SpeechOptions {
  text: string;
  voice?: string;
  language?: string;
  model?: string;
  speed?: number;
}

const fail = <T>(reason: string): ServiceAnswer<T> => ({ ok: false, reason });
/** The spec's input limit. */
const MAX_INPUT = 4096;

/**
 * The language careflow speaks in: the step's, else `tts.default_language`, else the senior's
 * (her fixed phrases and a family's message are read in her language's voice).
 */
async function spokenLanguage(ctx: PlatformContext, req: SpeechOptions): Promise<string> {
  const set = req.language?.trim() || ctx.settings.tts.default_language;
  if (set) return set;
  return seniorLanguage(ctx).catch(() => ctx.settings.app.language);
}

function speechBody(ctx: PlatformContext, req: SpeechOptions & { language: string }, format: "mp3" | "pcm", stream: boolean): string {
  const tts = ctx.settings.tts;
  return JSON.stringify({
    model: req.model ?? tts.default_model,
    input: req.text.slice(0, MAX_INPUT),
    voice: req.voice ?? tts.default_voice,
    response_format: format,
    speed: req.speed ?? tts.default_speed,
    language: req.language,
    ...(stream ? { stream: true } : {}),
  });
}

const unreachable = (ctx: PlatformContext, err: unknown): string =>
  `the TTS service at ${ctx.settings.tts.url} did not answer: ${err instanceof Error ? err.message : String(err)}`;

/** The service's state as this call saw it, for its part on the board: a 5xx or no answer is failing. */
function seen(ctx: PlatformContext, status: number | null, err?: unknown): void {
  const url = ctx.settings.tts.url;
  if (status !== null) return reportServiceCall({ service: "tts", url, up: status < 500, ...(status >= 500 ? { detail: `HTTP ${status}` } : {}) });
  // A call the caller cancelled says nothing about the service.
  if (err instanceof Error && err.name === "AbortError") return;
  reportServiceCall({ service: "tts", url, up: false, detail: describeFetchFailure(err) });
}

/** The whole clip as MP3. */
export async function synthesize(ctx: PlatformContext, req: SpeechOptions, signal: AbortSignal): Promise<ServiceAnswer<Buffer>> {
  const url = new URL("/v1/audio/speech", ctx.settings.tts.url);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: speechBody(ctx, { ...req, language: await spokenLanguage(ctx, req) }, "mp3", false),
      signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
    });
    seen(ctx, res.status);
    const body = Buffer.from(await res.arrayBuffer());
    if (!res.ok) return fail(`the TTS service at ${ctx.settings.tts.url} answered ${res.status}: ${body.toString("utf8").slice(0, 200)}`);
    return { ok: true, value: body };
  } catch (err) {
    seen(ctx, null, err);
    return fail(unreachable(ctx, err));
  }
}

export interface PcmStream {
  sample_rate: number;
  /** Chunks of whole int16 samples (an odd byte is carried to the next chunk), as they arrive. */
  chunks: AsyncIterable<Buffer>;
}

/** Streamed PCM: answers once the service has sent its headers; the chunks follow. */
export async function streamSpeech(ctx: PlatformContext, req: SpeechOptions, signal: AbortSignal): Promise<ServiceAnswer<PcmStream>> {
  const url = new URL("/v1/audio/speech", ctx.settings.tts.url);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: speechBody(ctx, { ...req, language: await spokenLanguage(ctx, req) }, "pcm", true),
      signal: AbortSignal.any([signal, AbortSignal.timeout(60_000)]),
    });
  } catch (err) {
    seen(ctx, null, err);
    return fail(unreachable(ctx, err));
  }
  seen(ctx, res.status);
  if (!res.ok || !res.body) {
    const text = await res.text().catch(() => "");
    return fail(`the TTS service at ${ctx.settings.tts.url} answered ${res.status}: ${text.slice(0, 200)}`);
  }
  const body = res.body;
  const sample_rate = Number(res.headers.get("x-sample-rate")) || 24000;
  async function* whole(): AsyncIterable<Buffer> {
    let carry: Buffer | null = null;
    for await (const part of body as unknown as AsyncIterable<Uint8Array>) {
      let buf = Buffer.from(part);
      if (carry) {
        buf = Buffer.concat([carry, buf]);
        carry = null;
      }
      if (buf.length % 2 === 1) {
        carry = Buffer.from(buf.subarray(buf.length - 1));
        buf = buf.subarray(0, buf.length - 1);
      }
      if (buf.length > 0) yield buf;
    }
  }
  return { ok: true, value: { sample_rate, chunks: whole() } };
}
