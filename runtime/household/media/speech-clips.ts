/**
 * Spoken messages for the hub's speakers: MP3 (or WAV) clips stored content-addressed under
 * `media/speech/` and served by signed URLs that expire, like camera frames (the same secret),
 * so a speaker on the home network fetches them without a key. A clip is only needed while it
 * plays: clips older than `CLIP_TTL_MS` are deleted each time one is stored.
 */
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { isoAt } from "../../platform/core/clock";
import { NotFoundError, ValidationError } from "../../platform/core/errors";
import { checkSignature, MEDIA_DIR, signature, urlSecret, type MediaContext } from "./media.service";

export const SPEECH_DIR = "speech";
export const CLIP_NAME = /^([0-9a-f]{64})\.(mp3|wav)$/;
const CLIP_TTL_MS = 60 * 60_000;
const MIME: Readonly<Record<string, string>> = { mp3: "audio/mpeg", wav: "audio/wav" };

const clipDir = (dataDir: string): string => path.join(dataDir, MEDIA_DIR, SPEECH_DIR);

/** Stores the clip and answers its signed URL (after `app.public_url` when set). */
export async function storeSpeechClip(ctx: MediaContext, bytes: Buffer, format: "mp3" | "wav"): Promise<{ clip_name: string; url: string }> {
  if (bytes.length === 0) throw new ValidationError("speech: the TTS service answered no audio");
  const name = `${createHash("sha256").update(bytes).digest("hex")}.${format}`;
  const dir = clipDir(ctx.dataDir);
  await fs.mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  await fs.writeFile(tmp, bytes);
  const now = new Date(ctx.clock.now());
  await fs.utimes(tmp, now, now);
  await fs.rename(tmp, path.join(dir, name));
  await sweepClips(ctx).catch((err: unknown) => ctx.log.warn({ err: String(err) }, "old speech clips could not be deleted"));
  const expires = Math.ceil(ctx.clock.now() / 1000) + ctx.settings.media.signed_url_ttl_seconds;
  const sig = signature(await urlSecret(ctx), `${SPEECH_DIR}/${name}`, expires);
  const base = (ctx.settings.app.public_url ?? "").replace(/\/+$/, "");
  return { clip_name: name, url: `${base}/api/v1/media/${SPEECH_DIR}/${name}?expires=${expires}&sig=${sig}` };
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
  const data = await fs.readFile(path.join(clipDir(ctx.dataDir), name)).catch(() => {
    throw new NotFoundError("Clip not found");
  });
  return { data, content_type: MIME[m[2]], valid_for };
}

async function sweepClips(ctx: MediaContext): Promise<void> {
  const cutoff = ctx.clock.now() - CLIP_TTL_MS;
  const dir = clipDir(ctx.dataDir);
  for (const name of await fs.readdir(dir)) {
    if (!CLIP_NAME.test(name)) continue;
    const st = await fs.stat(path.join(dir, name)).catch(() => null);
    if (st && st.mtimeMs < cutoff) await fs.rm(path.join(dir, name), { force: true });
  }
  ctx.log.debug({ before: isoAt(cutoff) }, "old speech clips swept");
}
