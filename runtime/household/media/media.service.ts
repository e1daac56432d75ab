/**
 * The media store (docs/media.md): camera frames as content-addressed objects named
 * `media/ab/cd/<sha256>.<ext>` (files under the data dir on one box, rows of the shared
 * database with `cluster.enabled`: object-store.ts), the same bytes once however many rows
 * name them, or an S3-compatible store with `media.store_url`; a `camera_media` row per frame; signed URLs
 * (the store's presigned ones with `media.store_url`)
 * that expire (HMAC-SHA256 over the object name and the expiry, with a secret generated once
 * and kept in the store); and a sweep that deletes rows older than
 * `aggregator.media_retention_hours` and then the files no row names any more.
 *
 * Writes and the sweep take one lock per data dir, so the sweep never deletes a file a frame
 * being stored is about to name; across instances, the store's delete spares an object put
 * within the sweep's grace.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import path from "node:path";
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { isoAt } from "../../platform/core/clock";
import { ForbiddenError, NotFoundError, ValidationError } from "../../platform/core/errors";
import { kvGet, kvSetIfAbsent } from "../../platform/db/kv";
import { sameText } from "../tracking/match";
import { IMAGE_EXT, imageMime, type ImageMime } from "./image-type";
import { keptByOthers } from "./media-keepers";
import { foreignUpTo, mediaObjects, presignedUrl } from "./media-objects";
import {
  deleteMediaRowsBefore,
  insertMediaRow,
  listMediaRows,
  mediaRowById,
  mediaRowsByObjects,
  mediaObjectSensorRooms,
  mediaRowByObject,
  mediaSensorRooms,
  objectsOfRowsBefore,
  oldestMediaTime,
  referencedAmong,
  type MediaBox,
  type MediaRow,
} from "./media.store";

export type { MediaBox, MediaRow };
export { imageMime, type ImageMime };
export { registerMediaKeeper, type MediaKeeper } from "./media-keepers";

export type MediaContext = Pick<PlatformContext, "db" | "dataDir" | "clock" | "settings" | "log" | "bus">;
/** What reading rows and files needs. */
export type MediaReader = Pick<PlatformContext, "db" | "dataDir">;

/** The folder under the data dir that holds the objects. */
export const MEDIA_DIR = "media";
/** An object's name: its bytes' SHA-256 in hex and the extension of its type. Nothing else is served. */
export const OBJECT_NAME = /^([0-9a-f]{64})\.(jpg|png|webp|gif|heic)$/;
const EXT_MIME: Readonly<Record<string, string>> = { ...Object.fromEntries(Object.entries(IMAGE_EXT).map(([mime, ext]) => [ext, mime])), heic: "image/heic" };
/** The app sweeps at most this often (and only when a frame has expired). */
export const SWEEP_EVERY_MS = 10 * 60_000;
/** A file younger than this is never swept, whatever the rows say (a write of another process). */
const SWEEP_GRACE_MS = 60_000;
const SECRET_KEY = "media:url-secret";

export interface FrameInput {
  sensor_id: string;
  room_name?: string | null;
  bytes: Buffer;
  /** Must be what the bytes are (JPEG, PNG, WebP or GIF); taken from the bytes when omitted. */
  content_type?: string;
  labels?: readonly string[];
  boxes?: readonly MediaBox[];
  /** ISO-8601; the clock's now when omitted. Retention counts from it. */
  captured_at?: string;
}

export interface StoredFrame {
  media_id: number;
  object_name: string;
  /** Relative to the data dir, with forward slashes (what `media_paths` carry). */
  path: string;
}

export const isObjectName = (name: string): boolean => OBJECT_NAME.test(name);

const OBJECT_NAMES_IN_TEXT = /\b[0-9a-f]{64}\.(?:jpg|png|webp|gif|heic)\b/g;
/** The object names a row's text names (a path, a signed URL, a JSON document), once each. */
export const objectNamesIn = (text: string | null | undefined): string[] => [...new Set(text ? (text.match(OBJECT_NAMES_IN_TEXT) ?? []) : [])];

/** `media/ab/cd/<object_name>`, relative to the data dir. */
export function objectPath(objectName: string): string {
  const m = OBJECT_NAME.exec(objectName);
  if (!m) throw new ValidationError(`not a media object name: '${objectName.slice(0, 80)}'`);
  return [MEDIA_DIR, m[1].slice(0, 2), m[1].slice(2, 4), objectName].join("/");
}

/** Where a row's (or a trigger's) media path is on this box: relative paths are under the data dir. */
export const mediaFilePath = (dataDir: string, p: string): string => (path.isAbsolute(p) ? p : path.resolve(dataDir, p));

// ---------------------------------------------------------------------------------------
// Storing

const locks = new Map<string, Promise<unknown>>();

/** Runs `fn` alone among the writes and sweeps of this data dir. */
async function exclusive<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(dataDir) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  locks.set(dataDir, tail);
  try {
    return await run;
  } finally {
    if (locks.get(dataDir) === tail) locks.delete(dataDir);
  }
}

function checkedFrame(ctx: MediaContext, f: FrameInput): { mime: ImageMime; captured_at: string } {
  if (typeof f.sensor_id !== "string" || f.sensor_id.trim() === "" || f.sensor_id.length > 100)
    throw new ValidationError("sensor_id: required, at most 100 characters");
  if (!Buffer.isBuffer(f.bytes) || f.bytes.length === 0) throw new ValidationError("bytes: an image is required");
  const mime = imageMime(f.bytes);
  if (!mime) throw new ValidationError("bytes: not a JPEG, PNG, WebP or GIF image");
  if (f.content_type !== undefined && f.content_type.toLowerCase() !== mime)
    throw new ValidationError(`content_type: '${f.content_type}' but the bytes are ${mime}`);
  const at = f.captured_at === undefined ? ctx.clock.now() : Date.parse(f.captured_at);
  if (!Number.isFinite(at)) throw new ValidationError("captured_at: not an ISO-8601 time");
  return { mime, captured_at: isoAt(at) };
}

/** Stores a frame's bytes (once per content) and its row. */
export async function storeFrame(ctx: MediaContext, f: FrameInput): Promise<StoredFrame> {
  const { mime, captured_at } = checkedFrame(ctx, f);
  const hash = createHash("sha256").update(f.bytes).digest("hex");
  const objectName = `${hash}.${IMAGE_EXT[mime]}`;
  const rel = objectPath(objectName);
  return exclusive(ctx.dataDir, async () => {
    await mediaObjects(ctx).put(rel, f.bytes, ctx.clock.now());
    const media_id = await insertMediaRow(ctx.db, {
      sensor_id: f.sensor_id,
      room_name: f.room_name ?? null,
      path: rel,
      captured_at,
      object_name: objectName,
      content_type: mime,
      byte_size: f.bytes.length,
      labels: [...(f.labels ?? [])],
      boxes: (f.boxes ?? []).map((b) => [...b]),
    });
    ctx.bus.publish("media.stored", { media_id, captured_at });
    return { media_id, object_name: objectName, path: rel };
  });
}

/** Stores bytes a keeper will hold (no `camera_media` row); the caller has checked their type. */
export async function storeObject(ctx: MediaContext, bytes: Buffer, ext: "jpg" | "png" | "webp" | "gif" | "heic"): Promise<string> {
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) throw new ValidationError("bytes: an image is required");
  const objectName = `${createHash("sha256").update(bytes).digest("hex")}.${ext}`;
  await exclusive(ctx.dataDir, () => mediaObjects(ctx).put(objectPath(objectName), bytes, ctx.clock.now()));
  return objectName;
}

// ---------------------------------------------------------------------------------------
// Reading

export const mediaRow = (ctx: MediaReader, id: number): Promise<MediaRow | undefined> => mediaRowById(ctx.db, id);

/** When each stored frame was taken (ISO), by object name; a name not in the store is absent. */
export async function capturedAtOf(ctx: MediaReader, objectNames: readonly string[]): Promise<Map<string, string>> {
  const rows = await mediaRowsByObjects(ctx.db, objectNames);
  return new Map(rows.flatMap((r) => (r.object_name ? [[r.object_name, r.captured_at] as const] : [])));
}

export interface FrameQuery {
  sensor_ids?: readonly string[];
  /** Matched in any case or Unicode spelling (match.ts). */
  room_names?: readonly string[];
  from?: string | null;
  to?: string | null;
}

/** Frames of the given sensors and rooms, newest first. */
export async function listFrames(ctx: MediaReader, q: FrameQuery = {}): Promise<MediaRow[]> {
  const rows = await listMediaRows(ctx.db, { from: q.from, to: q.to });
  const sensors = q.sensor_ids ?? [];
  const rooms = q.room_names ?? [];
  if (sensors.length === 0 && rooms.length === 0) return rows;
  return rows.filter((r) => sensors.includes(r.sensor_id) || (r.room_name !== null && rooms.some((room) => sameText(room, r.room_name!))));
}

/** The sensors that have frames in any of `roomNames`, by id. */
export async function sensorsWithFramesIn(ctx: MediaReader, roomNames: readonly string[]): Promise<string[]> {
  const pairs = await mediaSensorRooms(ctx.db);
  return [...new Set(pairs.filter((p) => roomNames.some((r) => sameText(r, p.room_name))).map((p) => p.sensor_id))].sort();
}

/** The newest `limit` frames of one sensor within the bounds, newest first. */
export const newestFrames = (ctx: MediaReader, sensorId: string, q: { from?: string | null; to?: string | null; limit: number }): Promise<MediaRow[]> =>
  listMediaRows(ctx.db, { sensor_id: sensorId, from: q.from, to: q.to, limit: q.limit, order: "desc" });

/** The newest `limit` frames of every sensor, newest first (the ingest activity view). */
export const latestFramesOfAll = (ctx: MediaReader, limit: number): Promise<MediaRow[]> => listMediaRows(ctx.db, { limit, order: "desc" });

export interface CameraFramesQuery {
  /** Cameras by id, in this order: their frames wherever they were taken. */
  sensor_ids?: readonly string[];
  /** And the frames other cameras took in these rooms (any case or spelling). Both empty: every camera. */
  room_names?: readonly string[];
  /** Inclusive ISO bounds on `captured_at`. */
  from?: string | null;
  to?: string | null;
  /** The newest this many frames of each camera… */
  per_sensor: number;
  /** …or this many for the cameras named here (0: none). */
  sensor_limits?: Readonly<Record<string, number>>;
}

/**
 * Each camera's newest frames with a stored object (so a URL can be signed for each), newest
 * first; cameras in `sensor_ids` order, then the others by id. A camera found by room gives
 * only the frames it took in that room, so a camera moved to another room is not read under
 * its old one. Never a frame older than `aggregator.media_retention_hours`, swept yet or not:
 * the sweep runs at most every 10 minutes, the retention is the promise.
 */
export async function newestFramesPerCamera(ctx: MediaContext, q: CameraFramesQuery): Promise<MediaRow[]> {
  const edge = ctx.clock.now() - ctx.settings.aggregator.media_retention_hours * 3_600_000;
  // Rows hold fixed-width ISO text: bounds are written the same way before they are compared.
  const from = isoAt(Math.max(edge, q.from ? instant(q.from, "from") : -Infinity));
  const to = q.to ? isoAt(instant(q.to, "to")) : null;
  const pairs = await mediaObjectSensorRooms(ctx.db, { from, to });
  const named = [...new Set(q.sensor_ids ?? [])];
  const rooms = q.room_names ?? [];
  // Per camera: undefined = all its frames; a list = only those taken in these rooms (as stored).
  const cameras = new Map<string, readonly string[] | undefined>();
  if (named.length === 0 && rooms.length === 0) {
    for (const id of [...new Set(pairs.map((p) => p.sensor_id))].sort()) cameras.set(id, undefined);
  } else {
    for (const id of named) cameras.set(id, undefined);
    const byRoom = new Map<string, string[]>();
    for (const p of pairs) {
      if (named.includes(p.sensor_id) || p.room_name === null || !rooms.some((r) => sameText(r, p.room_name!))) continue;
      byRoom.set(p.sensor_id, [...(byRoom.get(p.sensor_id) ?? []), p.room_name]);
    }
    for (const id of [...byRoom.keys()].sort()) cameras.set(id, byRoom.get(id));
  }
  const limits = q.sensor_limits ?? {};
  const out: MediaRow[] = [];
  for (const [sensorId, inRooms] of cameras) {
    const limit = Object.hasOwn(limits, sensorId) ? limits[sensorId] : q.per_sensor;
    if (!(limit > 0)) continue;
    out.push(...(await listMediaRows(ctx.db, { sensor_id: sensorId, rooms: inRooms, from, to, limit, order: "desc", objects_only: true })));
  }
  return out;
}

function instant(text: string, field: string): number {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new ValidationError(`${field}: not an ISO-8601 time`);
  return ms;
}

// ---------------------------------------------------------------------------------------
// Signed URLs

const secrets = new WeakMap<Knex, Promise<Buffer>>();

/** The URL secret: generated once, kept in the store's kv table, read once per store. */
export function urlSecret(ctx: MediaContext): Promise<Buffer> {
  let secret = secrets.get(ctx.db);
  if (!secret) {
    secret = (async () => {
      const stored = (await kvGet(ctx.db, SECRET_KEY)) ?? (await kvSetIfAbsent(ctx.db, SECRET_KEY, randomBytes(32).toString("hex"), isoAt(ctx.clock.now())));
      return Buffer.from(stored, "hex");
    })();
    secret.catch(() => secrets.delete(ctx.db));
    secrets.set(ctx.db, secret);
  }
  return secret;
}

/** The signature of an object name and an expiry (epoch seconds), base64url. */
export const signature = (secret: Buffer, objectName: string, expires: number): string =>
  createHmac("sha256", secret).update(`${objectName}\n${expires}`, "utf8").digest("base64url");

/** `/api/v1/media/<object_name>?expires=<epoch s>&sig=<hmac>` (after `app.public_url` when set). */
export async function signedUrl(ctx: MediaContext, ref: number | string, ttlSeconds?: number): Promise<string> {
  let objectName: string;
  if (typeof ref === "number") {
    const row = await mediaRowById(ctx.db, ref);
    if (!row) throw new NotFoundError(`Media ${ref} not found`);
    if (!row.object_name) throw new ValidationError(`Media ${ref} has no stored object to sign`);
    objectName = row.object_name;
  } else {
    objectName = ref;
  }
  if (!isObjectName(objectName)) throw new ValidationError(`not a media object name: '${objectName.slice(0, 80)}'`);
  const ttl = ttlSeconds ?? ctx.settings.media.signed_url_ttl_seconds;
  if (!Number.isInteger(ttl) || ttl <= 0) throw new ValidationError("ttl: a positive whole number of seconds");
  if (ctx.settings.media.store_url) return presignedLink(ctx, objectPath(objectName), ttl);
  const expires = Math.ceil(ctx.clock.now() / 1000) + ttl;
  const sig = signature(await urlSecret(ctx), objectName, expires);
  const base = (ctx.settings.app.public_url ?? "").replace(/\/+$/, "");
  return `${base}/api/v1/media/${objectName}?expires=${expires}&sig=${sig}`;
}

/** S3 refuses a presigned URL valid for longer than a week. */
export const MAX_PRESIGN_SECONDS = 604_800;

/** With `media.store_url`: the store's own presigned GET, which a speaker or a chat server fetches from it directly. */
export async function presignedLink(ctx: MediaContext, name: string, ttl: number): Promise<string> {
  if (ttl > MAX_PRESIGN_SECONDS) throw new ValidationError(`ttl: at most ${MAX_PRESIGN_SECONDS} seconds (a week) with an S3 media store`);
  const url = await presignedUrl(ctx, name, ttl);
  if (!url) throw new Error("media.store_url is set but the media store is not an S3 store");
  return url;
}

const SIG = /^[A-Za-z0-9_-]{43}$/;
const EXPIRES = /^\d{1,12}$/;

/**
 * Throws 403 unless `sig` signs `objectName` and `expires` and that time has not passed; the
 * comparison takes the same time whatever the signature's content.
 */
export async function checkSignature(ctx: MediaContext, objectName: string, expires: unknown, sig: unknown): Promise<number> {
  const given = typeof sig === "string" && SIG.test(sig) ? Buffer.from(sig, "base64url") : Buffer.alloc(32);
  const at = typeof expires === "string" && EXPIRES.test(expires) ? Number(expires) : -1;
  const expected = Buffer.from(signature(await urlSecret(ctx), objectName, at), "base64url");
  const matches = timingSafeEqual(given, expected) && at >= 0 && typeof sig === "string" && SIG.test(sig);
  if (!matches) throw new ForbiddenError("The media URL's signature does not match");
  const left = at - Math.floor(ctx.clock.now() / 1000);
  if (left < 0) throw new ForbiddenError("The media URL has expired");
  return left;
}

export interface MediaObject {
  data: Buffer;
  content_type: string;
  /** Seconds the URL stays valid. */
  valid_for: number;
}

/** What a signed URL serves: 403 for a bad or expired signature, then 404 for an object no row stores. */
export async function openSignedObject(ctx: MediaContext, objectName: string, query: { expires?: unknown; sig?: unknown }): Promise<MediaObject> {
  const valid_for = await checkSignature(ctx, objectName, query.expires, query.sig);
  const m = OBJECT_NAME.exec(objectName);
  const row = m ? await mediaRowByObject(ctx.db, objectName) : undefined;
  const kept = m && !row ? (await keptByOthers(ctx.db, [objectName])).has(objectName) : false;
  if (!m || (!row && !kept)) throw new NotFoundError("Media not found");
  const data = await mediaObjects(ctx).get(objectPath(objectName));
  if (!data) throw new NotFoundError("Media not found");
  return { data, content_type: row?.content_type ?? EXT_MIME[m[2]], valid_for };
}

// ---------------------------------------------------------------------------------------
// Retention

export interface SweepReport {
  rows: number;
  files: number;
}

/** A frame's object (or a temporary file left over) at `media/ab/cd/`: not a speech clip. */
const SHARDED = /^media\/[0-9a-f]{2}\/[0-9a-f]{2}\/[^/]+$/;

/** Files deleted per turn of the lock: a frame being stored waits for one chunk, never a whole sweep. */
const SWEEP_CHUNK = 100;

/**
 * Deletes the rows captured more than `aggregator.media_retention_hours` ago, then the objects
 * (and leftover temporary files) under media/ that no row or keeper names any more, unless
 * written or stored again within the last minute: those the expired rows named, and any other
 * only when this store wrote it (in its own folder, since it claimed it: media-root.ts). A
 * file another store left in the data dir is never this sweep's to delete, named or not. The
 * files go in chunks, each under the lock and checked again against the rows then, so a store
 * waits at most for one chunk (the camera bench saw uploads held for seconds while a whole
 * sweep held the lock).
 */
export async function sweepExpired(ctx: MediaContext): Promise<SweepReport> {
  const now = ctx.clock.now();
  const cutoff = isoAt(now - ctx.settings.aggregator.media_retention_hours * 3_600_000);
  const { rows, expired } = await exclusive(ctx.dataDir, async () => ({
    expired: await objectsOfRowsBefore(ctx.db, cutoff),
    rows: await deleteMediaRowsBefore(ctx.db, cutoff),
  }));
  const foreign = await foreignUpTo(ctx);
  // Listing needs no lock: an object written after it is simply not in this sweep.
  const objects = mediaObjects(ctx);
  const listed = (await objects.list(MEDIA_DIR)).filter((o) => {
    const name = path.posix.basename(o.name);
    return SHARDED.test(o.name) && (isObjectName(name) || name.endsWith(".tmp")) && (o.modified_ms > foreign || expired.has(name));
  });
  let files = 0;
  for (let i = 0; i < listed.length; i += SWEEP_CHUNK) {
    const chunk = listed.slice(i, i + SWEEP_CHUNK);
    files += await exclusive(ctx.dataDir, async () => {
      const names = chunk.map((o) => path.posix.basename(o.name)).filter(isObjectName);
      const kept = new Set([...(await referencedAmong(ctx.db, names)), ...(await keptByOthers(ctx.db, names))]);
      let deleted = 0;
      for (const o of chunk) {
        if (kept.has(path.posix.basename(o.name))) continue;
        // Re-checked by the store as it deletes: a put since (by any instance) keeps the object.
        if (await objects.delete(o.name, now - SWEEP_GRACE_MS)) deleted++;
      }
      return deleted;
    });
  }
  if (rows || files) ctx.log.info({ rows, files, cutoff }, "media: expired frames deleted");
  return { rows, files };
}

/**
 * The objects rows the retention job deleted named (docs/retention.md): each is deleted now,
 * through the store's own delete, unless something still names it: a frame row (the camera
 * cache keeps it to its own hours), a keeper (a document's photo, a card's picture) or a row
 * the retention kept (`keptByRows`, which says which of the names kept rows name). Answers
 * how many objects went.
 */
export async function deleteObjectsOfPrunedRows(
  ctx: MediaContext,
  names: readonly string[],
  keptByRows: (names: readonly string[]) => Promise<Set<string>>,
): Promise<number> {
  const candidates = [...new Set(names.filter(isObjectName))];
  const objects = mediaObjects(ctx);
  let deleted = 0;
  for (let i = 0; i < candidates.length; i += SWEEP_CHUNK) {
    // Most are gone already (a run's frames outlive it by a day at most): only the others are
    // looked for in the kept rows, a search through their text.
    const stats = await Promise.all(candidates.slice(i, i + SWEEP_CHUNK).map((n) => objects.stat(objectPath(n))));
    const chunk = candidates.slice(i, i + SWEEP_CHUNK).filter((_, k) => stats[k] !== null);
    if (chunk.length === 0) continue;
    const rowsKeep = await keptByRows(chunk);
    deleted += await exclusive(ctx.dataDir, async () => {
      const kept = new Set([...rowsKeep, ...(await referencedAmong(ctx.db, chunk)), ...(await keptByOthers(ctx.db, chunk))]);
      let n = 0;
      for (const name of chunk) if (!kept.has(name) && (await objects.delete(objectPath(name), ctx.clock.now() - SWEEP_GRACE_MS))) n++;
      return n;
    });
  }
  return deleted;
}

/**
 * Sweeps now, then whenever the oldest frame passes the retention, on the context's clock, at
 * most every SWEEP_EVERY_MS: one timer while there are frames, none while there are none. A
 * stored frame arms it for its own expiry. The returned stop cancels the timer and waits for a
 * sweep under way.
 */
export function startMediaSweep(ctx: MediaContext, opts: { clustered?: boolean } = {}): () => Promise<void> {
  // A frame is swept once strictly older than the retention: one millisecond past it.
  const retentionMs = (): number => ctx.settings.aggregator.media_retention_hours * 3_600_000 + 1;
  let timer: { at: number; cancel: () => void } | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let lastSweep = -Infinity;
  let stopped = false;

  const arm = (dueMs: number): void => {
    if (stopped) return;
    const at = Math.max(dueMs, lastSweep + SWEEP_EVERY_MS);
    if (timer && timer.at <= at) return;
    timer?.cancel();
    timer = {
      at,
      cancel: ctx.clock.at(at, () => {
        timer = undefined;
        run();
      }),
    };
  };
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    lastSweep = ctx.clock.now();
    running = (async () => {
      try {
        await sweepExpired(ctx);
        const oldest = await oldestMediaTime(ctx.db);
        if (oldest !== null) arm(Date.parse(oldest) + retentionMs());
        // Several instances: frames stored elsewhere arm nothing here; the earliest any of them expires.
        else if (opts.clustered) arm(ctx.clock.now() + retentionMs());
      } catch (err) {
        ctx.log.error({ err }, "media: the sweep failed");
      } finally {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      }
    })();
  };
  const unsubscribe = ctx.bus.subscribe("media.stored", (e) => arm(Date.parse(e.captured_at) + retentionMs()));
  run();
  return async () => {
    stopped = true;
    unsubscribe();
    timer?.cancel();
    timer = undefined;
    await running;
  };
}
