/**
 * `camera_media`, owned here: one row per stored camera frame (sensor, room, time, the
 * object its bytes are, labels and boxes). Rows with the same bytes share one object; a row
 * written before the media store (a `path` only) has no object name. `captured_at` is
 * ISO-8601 UTC, so text order is time order on both stores.
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../platform/db/json-column";

/** A box as cameras send it: [x1, y1, x2, y2, score, class_id]. */
export type MediaBox = number[];

export interface MediaRow {
  id: number;
  sensor_id: string;
  room_name: string | null;
  /** The file, relative to the data dir (or absolute, for rows written by hand). */
  path: string;
  captured_at: string;
  object_name: string | null;
  content_type: string | null;
  byte_size: number | null;
  labels: string[];
  boxes: MediaBox[];
}

export type NewMediaRow = Omit<MediaRow, "id">;

interface DbRow extends Omit<MediaRow, "labels" | "boxes"> {
  labels_json: string | null;
  boxes_json: string | null;
}

const fromDb = (r: DbRow): MediaRow => ({
  id: Number(r.id),
  sensor_id: r.sensor_id,
  room_name: r.room_name ?? null,
  path: r.path,
  captured_at: r.captured_at,
  object_name: r.object_name ?? null,
  content_type: r.content_type ?? null,
  byte_size: r.byte_size === null || r.byte_size === undefined ? null : Number(r.byte_size),
  labels: fromJsonText<string[]>(r.labels_json, []),
  boxes: fromJsonText<MediaBox[]>(r.boxes_json, []),
});

export async function insertMediaRow(db: Knex, row: NewMediaRow): Promise<number> {
  const { labels, boxes, ...rest } = row;
  const [inserted] = await db("camera_media")
    .insert({ ...rest, labels_json: toJsonText(labels), boxes_json: toJsonText(boxes) })
    .returning("id");
  return typeof inserted === "object" ? Number((inserted as { id: number }).id) : Number(inserted);
}

export async function mediaRowById(db: Knex, id: number): Promise<MediaRow | undefined> {
  const row: DbRow | undefined = await db("camera_media").where({ id }).first();
  return row ? fromDb(row) : undefined;
}

/** One row (the newest) that stores `object_name`, or none. */
export async function mediaRowByObject(db: Knex, objectName: string): Promise<MediaRow | undefined> {
  const row: DbRow | undefined = await db("camera_media").where({ object_name: objectName }).orderBy("id", "desc").first();
  return row ? fromDb(row) : undefined;
}

/** Every row that stores one of `objectNames`, in one query. */
export async function mediaRowsByObjects(db: Knex, objectNames: readonly string[]): Promise<MediaRow[]> {
  if (objectNames.length === 0) return [];
  const rows: DbRow[] = await db("camera_media").whereIn("object_name", [...objectNames]);
  return rows.map(fromDb);
}

export interface MediaQuery {
  sensor_id?: string;
  /** Inclusive ISO bounds on `captured_at`. */
  from?: string | null;
  to?: string | null;
  /** Only rows whose `room_name` is one of these, exactly as stored. */
  rooms?: readonly string[];
  /** Only rows with a stored object (those a URL can be signed for). */
  objects_only?: boolean;
  limit?: number;
  /** Newest first (default) or oldest first. */
  order?: "desc" | "asc";
}

/** Rows by sensor and time (rooms are matched by the caller, in JavaScript: see match.ts). */
export async function listMediaRows(db: Knex, q: MediaQuery = {}): Promise<MediaRow[]> {
  const order = q.order ?? "desc";
  const query = db("camera_media")
    .select("*")
    .orderBy([
      { column: "captured_at", order },
      { column: "id", order },
    ]);
  if (q.sensor_id !== undefined) query.where("sensor_id", q.sensor_id);
  if (q.from) query.where("captured_at", ">=", q.from);
  if (q.to) query.where("captured_at", "<=", q.to);
  if (q.rooms !== undefined) query.whereIn("room_name", [...q.rooms]);
  if (q.objects_only) query.whereNotNull("object_name");
  if (q.limit !== undefined) query.limit(q.limit);
  const rows: DbRow[] = await query;
  return rows.map(fromDb);
}

/** Each (sensor, room) pair that has frames, rooms not null. */
export async function mediaSensorRooms(db: Knex): Promise<Array<{ sensor_id: string; room_name: string }>> {
  return db("camera_media").distinct("sensor_id", "room_name").whereNotNull("room_name");
}

/** Each (sensor, room) pair of the rows with a stored object captured in the bounds; a room may be null. */
export async function mediaObjectSensorRooms(
  db: Knex,
  q: { from?: string | null; to?: string | null },
): Promise<Array<{ sensor_id: string; room_name: string | null }>> {
  const query = db("camera_media").distinct("sensor_id", "room_name").whereNotNull("object_name");
  if (q.from) query.where("captured_at", ">=", q.from);
  if (q.to) query.where("captured_at", "<=", q.to);
  const rows: Array<{ sensor_id: string; room_name: string | null }> = await query;
  return rows.map((r) => ({ sensor_id: r.sensor_id, room_name: r.room_name ?? null }));
}

/** The object names of the rows captured before `cutoffIso` (what deleting them may free). */
export async function objectsOfRowsBefore(db: Knex, cutoffIso: string): Promise<Set<string>> {
  const rows: Array<{ object_name: string }> = await db("camera_media")
    .distinct("object_name")
    .where("captured_at", "<", cutoffIso)
    .whereNotNull("object_name");
  return new Set(rows.map((r) => r.object_name));
}

/** Deletes the rows captured before `cutoffIso`; returns how many. */
export async function deleteMediaRowsBefore(db: Knex, cutoffIso: string): Promise<number> {
  return db("camera_media").where("captured_at", "<", cutoffIso).delete();
}

/** Which of these object names some row still names (the sweep asks chunk by chunk). */
export async function referencedAmong(db: Knex, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows: Array<{ object_name: string }> = await db("camera_media")
    .distinct("object_name")
    .whereIn("object_name", [...names]);
  return new Set(rows.map((r) => r.object_name));
}

/** The oldest frame's `captured_at`, or null when there is none. */
export async function oldestMediaTime(db: Knex): Promise<string | null> {
  const row = (await db("camera_media").min({ oldest: "captured_at" }).first()) as { oldest?: string | null } | undefined;
  return row?.oldest ?? null;
}
