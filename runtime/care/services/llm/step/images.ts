/**
 * The images an llm_call sends: the trigger's media first, then frames of other cameras from
 * the media store (household/media), deduplicated by path and cut at `max_images`. Unreadable
 * or non-image files are skipped with a warning, and the next candidate takes their place.
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../../../platform/context";
import type { Logger } from "../../../../platform/core/logger";
import { imageMime, mediaFilePath, newestFrames, sensorsWithFramesIn, type MediaRow } from "../../../../household/media/media.service";
import { readMediaPath } from "../../../../household/media/media-paths";
import type { ChatImage } from "../types";
import { imageTimeSpan, type ImageTimeFilter } from "./time-window";

export interface ImageConfig {
  image_source: "none" | "trigger" | "additional" | "both";
  max_images: number;
  additional_sensor_ids: string[];
  additional_room_names: string[];
  images_per_sensor: number;
  sort_by_sensor_then_time: boolean;
  image_time_filter?: ImageTimeFilter;
}

export interface ImageEnv {
  db: Knex;
  dataDir: string;
  /** Which media store holds the frames (`cluster.enabled`); absent, the data dir's files. */
  settings?: PlatformContext["settings"];
  log: Logger;
  nowMs: number;
  timeZone: string;
}

export interface SelectedImage extends Extract<ChatImage, { data: Buffer }> {
  path: string;
}

export async function collectImages(env: ImageEnv, mediaPaths: readonly string[], config: ImageConfig): Promise<SelectedImage[]> {
  const fromTrigger = config.image_source === "trigger" || config.image_source === "both";
  const fromOthers = config.image_source === "additional" || config.image_source === "both";
  const trigger = fromTrigger ? [...mediaPaths] : [];
  // Read in priority order until the cap is reached; then lay the additional ones out as asked.
  const chosen = await readUpTo(env, trigger, config.max_images, new Set());
  if (!fromOthers || chosen.length >= config.max_images) return chosen;
  const rows = await additionalRows(env, config);
  const priority = config.sort_by_sensor_then_time ? rows : [...rows].sort(newestFirst);
  const seen = new Set(chosen.map((c) => c.path));
  const extraPaths = priority.map((r) => r.path);
  const extra = await readUpTo(env, extraPaths, config.max_images - chosen.length, seen);
  if (!config.sort_by_sensor_then_time) {
    // Shown oldest first, so the model reads the frames as the sequence they were.
    const at = new Map(rows.map((r) => [resolve(env.dataDir, r.path), r.captured_at + String(r.id).padStart(12, "0")]));
    extra.sort((a, b) => (at.get(a.path) ?? "").localeCompare(at.get(b.path) ?? ""));
  }
  return [...chosen, ...extra];
}

const newestFirst = (a: MediaRow, b: MediaRow): number => b.captured_at.localeCompare(a.captured_at) || b.id - a.id;

/**
 * The newest `images_per_sensor` frames of each camera, cameras in list order (those found
 * only by room after them, by id), oldest first within each camera.
 */
async function additionalRows(env: ImageEnv, config: ImageConfig): Promise<MediaRow[]> {
  const sensors = [...new Set(config.additional_sensor_ids)];
  if (config.additional_room_names.length > 0) {
    // Rooms are compared by the media service in JavaScript, so "Küche" matches "KÜCHE" on both stores.
    const inRooms = (await sensorsWithFramesIn(env, config.additional_room_names)).filter((s) => !sensors.includes(s));
    sensors.push(...inRooms);
  }
  const span = imageTimeSpan(config.image_time_filter, env.nowMs, env.timeZone);
  const from = span.from !== null ? new Date(span.from).toISOString() : null;
  const to = span.to !== null ? new Date(span.to).toISOString() : null;
  const out: MediaRow[] = [];
  for (const sensor of sensors) {
    const newest = await newestFrames(env, sensor, { from, to, limit: config.images_per_sensor });
    out.push(...newest.reverse());
  }
  return out;
}

async function readUpTo(env: ImageEnv, paths: readonly string[], limit: number, seen: Set<string>): Promise<SelectedImage[]> {
  const out: SelectedImage[] = [];
  for (const p of paths) {
    if (out.length >= limit) break;
    const full = resolve(env.dataDir, p);
    if (seen.has(full)) continue;
    seen.add(full);
    const image = await readImage(env, p, full);
    if (image) out.push(image);
  }
  return out;
}

const resolve = mediaFilePath;
const ONE_BOX = { cluster: { enabled: false } };

async function readImage(env: ImageEnv, mediaPath: string, full: string): Promise<SelectedImage | null> {
  const { log } = env;
  const data = await readMediaPath({ db: env.db, dataDir: env.dataDir, settings: env.settings ?? ONE_BOX, log }, mediaPath);
  if (!data) {
    log.warn({ path: full }, "llm_call: image not readable; skipped");
    return null;
  }
  const mime = imageMime(data);
  if (!mime) {
    log.warn({ path: full }, "llm_call: not a JPEG, PNG, WebP or GIF image; skipped");
    return null;
  }
  return { path: full, mime, data };
}

export { imageMime };
