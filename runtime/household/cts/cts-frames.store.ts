/**
 * The recent tracking frames (one per tracking event) the `cts_window` trigger and the
 * `cts_window_poll` step read as a bucketed window. Kept for an hour: a window looks seconds back.
 */
import type { Knex } from "knex";
import { fromJsonText } from "../../platform/db/json-column";
import type { WriteBatch } from "../../platform/db/write-batch";
import { deleteBefore } from "../../platform/db/delete-before";

export interface FrameDetection {
  ph_id: string;
  identity_id: string | null;
  confidence: number;
  identity_confidence: number | null;
  posture: string | null;
  bbox: { x_min: number; y_min: number; x_max: number; y_max: number } | null;
}

export interface TrackingFrame {
  id: number;
  event_id: string | null;
  camera_id: string;
  room_name: string | null;
  event_time: string;
  detections: FrameDetection[];
}

interface FrameRow extends Omit<TrackingFrame, "detections"> {
  detections_json: string;
}

export const FRAME_KEEP_MS = 3_600_000;

export async function storeFrame(trx: Knex, f: Omit<TrackingFrame, "id">): Promise<void> {
  const { detections, ...rest } = f;
  await trx("cts_frames").insert({ ...rest, detections_json: JSON.stringify(detections) });
}

/** Queues frames on the batch, in order. */
export function queueFrames(batch: WriteBatch, fs: readonly Omit<TrackingFrame, "id">[]): void {
  batch.insert(
    "cts_frames",
    fs.map(({ detections, ...rest }) => ({ ...rest, detections_json: JSON.stringify(detections) })),
  );
}

/** Frames with `since <= event_time <= until`, oldest first, of the cameras and rooms given (empty = all). */
export async function framesBetween(
  db: Knex,
  q: { since: string; until: string; cameras: readonly string[]; rooms: readonly string[] },
): Promise<TrackingFrame[]> {
  const query = db<FrameRow>("cts_frames").whereBetween("event_time", [q.since, q.until]).orderBy("event_time", "asc").orderBy("id", "asc").limit(5000);
  if (q.cameras.length) query.whereIn("camera_id", [...q.cameras]);
  if (q.rooms.length) query.whereIn("room_name", [...q.rooms]);
  const rows: FrameRow[] = await query;
  return rows.map(({ detections_json, ...r }) => ({ ...r, id: Number(r.id), detections: fromJsonText<FrameDetection[]>(detections_json, []) }));
}

export async function forgetFramesBefore(db: Knex, before: string, signal?: AbortSignal): Promise<number> {
  return deleteBefore(db, "cts_frames", "event_time", before, { signal });
}
