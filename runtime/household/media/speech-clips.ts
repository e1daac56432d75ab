/**
 * Spoken messages for the hub's speakers: MP3 (or WAV) clips stored content-addressed under
 * `media/speech/` and served by signed URLs that expire, like camera frames (the same secret),
 * so a speaker on the home network fetches them without a key (with `media.store_url`, the
 * S3 store's presigned URLs). A clip is only needed while it
 * plays: clips older than `CLIP_TTL_MS` are deleted each time one is stored.
 */
import { createHash } from "node:crypto";
import { isoAt } from "../../platform/core/clock";
import { NotFoundError, ValidationError } from "../../platform/core/errors";
import { checkSignature, MEDIA_DIR, presignedLink, signature, urlSecret, type MediaContext } from "./media.service";
import { mediaObjects } from "./media-objects";

export const SPEECH_DIR = "speech";
export const CLIP_NAME = /^([0-9a-f]{64})\.(mp3|wav)$/;
const CLIP_TTL_MS = 60 * 60_000;
const MIME: Readonly<Record<string, string>> = { mp3: "audio/mpeg", wav: "audio/wav" };

/** The folder of the clips in the media store (a folder of the data dir on one box). */
const CLIP_DIR = `${MEDIA_DIR}/${SPEECH_DIR}/`;

/**
 * Stores the clip and answers its signed URL after `base` (default `app.public_url` when set,
 * else a path: the web app fetches it from where it was loaded).
 */
export async function storeSpeechClip(
  ctx: MediaContext,
  bytes: Buffer,
  format: "mp3" | "wav",
  base: string = ctx.settings.app.public_url ?? "",
): Promise<{ clip_name: string; url: string }> {
  if (bytes.length === 0) throw new ValidationError("speech: the TTS service answered no audio");
  const name = `${createHash("sha256").update(bytes).digest("hex")}.${format}`;
  await mediaObjects(ctx).put(CLIP_DIR + name, bytes, ctx.clock.now());
  await sweepClips(ctx).catch((err: unknown) => ctx.log.warn({ err: String(err) }, "old speech clips could not be deleted"));
  if (ctx.settings.media.store_url) return { clip_name: name, url: await presignedLink(ctx, CLIP_DIR + name, ctx.settings.media.signed_url_ttl_seconds) };
  const expires = Math.ceil(ctx.clock.now() / 1000) + ctx.settings.media.signed_url_ttl_seconds;
  const sig = signature(await urlSecret(ctx), `${SPEECH_DIR}/${name}`, expires);
  return { clip_name: name, url: `${base.replace(/\/+$/, "")}/api/v1/media/${SPEECH_DIR}/${name}?expires=${expires}&sig=${sig}` };
}

/** What a clip's signed URL serves: 403 for a bad or expired signature, then 404. */
export async function openSpeechClip(
  ctx: MediaContext,
  name: string,
  query: { expires?: unknown; sig?: unknown },
): Promise<{ data: Buffer; content_type: string; valid_for: number }> {
  const valid_for = await checkSignature(ctx, `${SPEECH_DIR}/${name}`, query.expires, query.sig);
  const m = CLIP_NAME.exec(name);
  if (!m) throw new NotFoundError("Clip not found");
  const data = await mediaObjects(ctx).get(CLIP_DIR + name);
  if (!data) throw new NotFoundError("Clip not found");
  return { data, content_type: MIME[m[2]], valid_for };
}

async function sweepClips(ctx: MediaContext): Promise<void> {
  const cutoff = ctx.clock.now() - CLIP_TTL_MS;
  const objects = mediaObjects(ctx);
  for (const clip of await objects.list(CLIP_DIR)) {
    if (!CLIP_NAME.test(clip.name.slice(CLIP_DIR.length)) || clip.modified_ms >= cutoff) continue;
    // Spared if stored again meanwhile (by any instance).
    await objects.delete(clip.name, cutoff - 1);
  }
  ctx.log.debug({ before: isoAt(cutoff) }, "old speech clips swept");
}
