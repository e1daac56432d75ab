/**
 * The images an llm_call sends: the trigger's media first, then frames of other cameras from
 * `camera_media`, deduplicated by path and cut at `max_images`. Unreadable or non-image files
 * are skipped with a warning, and the next candidate takes their place.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Knex } from "knex";
import type { Logger } from "../../../platform/core/logger";
import { sameText } from "../../../household/tracking/match";
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
  log: Logger;
  nowMs: number;
  timeZone: string;
}

export interface SelectedImage extends Extract<ChatImage, { data: Buffer }> {
  path: string;
}

interface MediaRow {
  id: number;
  sensor_id: string;
  path: string;
  captured_at: string;
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
    // Rooms are compared here, not in SQL, so "Küche" matches "KÜCHE" on both stores.
    const pairs: Array<{ sensor_id: string; room_name: string }> = await env.db("camera_media").distinct("sensor_id", "room_name").whereNotNull("room_name");
    const inRooms = pairs
      .filter((p) => config.additional_room_names.some((r) => sameText(r, p.room_name)))
      .map((p) => p.sensor_id)
      .filter((s) => !sensors.includes(s))
      .sort();
    sensors.push(...new Set(inRooms));
  }
  const span = imageTimeSpan(config.image_time_filter, env.nowMs, env.timeZone);
  const out: MediaRow[] = [];
  for (const sensor of sensors) {
    const q = env.db<MediaRow>("camera_media").select("id", "sensor_id", "path", "captured_at").where("sensor_id", sensor);
    if (span.from !== null) q.where("captured_at", ">=", new Date(span.from).toISOString());
    if (span.to !== null) q.where("captured_at", "<=", new Date(span.to).toISOString());
    const newest = await q
      .orderBy([
        { column: "captured_at", order: "desc" },
        { column: "id", order: "desc" },
      ])
      .limit(config.images_per_sensor);
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
    const image = await readImage(env.log, full);
    if (image) out.push(image);
  }
  return out;
}

const resolve = (dataDir: string, p: string): string => (path.isAbsolute(p) ? p : path.resolve(dataDir, p));

async function readImage(log: Logger, full: string): Promise<SelectedImage | null> {
  let data: Buffer;
  try {
    data = await fs.readFile(full);
  } catch (err) {
    log.warn({ path: full, err: (err as Error).message }, "llm_call: image not readable; skipped");
    return null;
  }
  const mime = imageMime(data);
  if (!mime) {
    log.warn({ path: full }, "llm_call: not a JPEG, PNG, WebP or GIF image; skipped");
    return null;
  }
  return { path: full, mime, data };
}

/** The type from the file's first bytes: names lie more often than headers do. */
export function imageMime(data: Buffer): string | null {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return "image/jpeg";
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (data.length >= 12 && data.toString("latin1", 0, 4) === "RIFF" && data.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.toString("latin1", 0, 6))) return "image/gif";
  return null;
}
