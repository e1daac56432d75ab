/**
 * Announcements in the web app (`/ws`): speech from the household's TTS service, either
 * streamed while it is made (`{type:"announcement", subtype:"stream_start", sample_rate}`,
 * binary int16 LE PCM frames, `{subtype:"stream_end"}`) or as a link to a stored clip
 * (`{subtype:"audio_url", url}`, a signed speech clip of the media store). Announcements of
 * one process go out one after another, so the binary frames of two never interleave on a
 * socket. Every "cannot" is an answer with its reason, never a throw.
 */
import type { ServiceAnswer } from "../../../vocabulary/answers";
import { NO_WEB_APP, type AnnounceRequest, type Announced } from "../../../vocabulary/tablet";
import type { PlatformContext } from "../../platform/context";
import type { WebAppHub } from "../../platform/ws/webapp-hub";
import { storeSpeechClip } from "../media/speech-clips";
import { streamSpeech, synthesize } from "./tts-client";

const fail = <T>(reason: string): ServiceAnswer<T> => ({ ok: false, reason });
const NOBODY = NO_WEB_APP;

/** The announcement in progress per socket hub: the next waits for it. */
const queues = new WeakMap<WebAppHub, Promise<unknown>>();

export function announce(ctx: PlatformContext, request: AnnounceRequest, signal: AbortSignal): Promise<ServiceAnswer<Announced>> {
  const before = queues.get(ctx.webapp) ?? Promise.resolve();
  const mine = before.then(() => (signal.aborted ? fail<Announced>("cancelled before it was spoken") : speak(ctx, request, signal)));
  queues.set(
    ctx.webapp,
    mine.catch(() => undefined),
  );
  return mine;
}

async function speak(ctx: PlatformContext, request: AnnounceRequest, signal: AbortSignal): Promise<ServiceAnswer<Announced>> {
  if (ctx.webapp.size === 0) return fail(NOBODY);
  if (!request.text.trim()) return fail("nothing to say: the message is empty");
  return request.mode === "file" ? speakFile(ctx, request, signal) : speakStream(ctx, request, signal);
}

async function speakFile(ctx: PlatformContext, request: AnnounceRequest, signal: AbortSignal): Promise<ServiceAnswer<Announced>> {
  const audio = await synthesize(ctx, request, signal);
  if (!audio.ok) return audio;
  const clip = await storeSpeechClip(ctx, audio.value, "mp3");
  const clients = ctx.webapp.broadcast({ type: "announcement", subtype: "audio_url", url: clip.url, text: request.text });
  if (clients === 0) return fail(NOBODY);
  return { ok: true, value: { mode: "file", clients, bytes: audio.value.length, url: clip.url } };
}

async function speakStream(ctx: PlatformContext, request: AnnounceRequest, signal: AbortSignal): Promise<ServiceAnswer<Announced>> {
  const stream = await streamSpeech(ctx, request, signal);
  if (!stream.ok) return stream;
  const clients = ctx.webapp.broadcast({ type: "announcement", subtype: "stream_start", sample_rate: stream.value.sample_rate, text: request.text });
  let bytes = 0;
  try {
    for await (const chunk of stream.value.chunks) {
      ctx.webapp.broadcastBinary(chunk);
      bytes += chunk.length;
    }
  } catch (err) {
    const reason = `the speech stream broke off after ${bytes} bytes: ${err instanceof Error ? err.message : String(err)}`;
    ctx.webapp.broadcast({ type: "announcement", subtype: "stream_end", error: reason });
    return fail(reason);
  }
  ctx.webapp.broadcast({ type: "announcement", subtype: "stream_end" });
  if (clients === 0) return fail(NOBODY);
  if (bytes === 0) return fail("the TTS service streamed no audio");
  return { ok: true, value: { mode: "stream", clients, bytes, sample_rate: stream.value.sample_rate } };
}
