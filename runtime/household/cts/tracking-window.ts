/**
 * The bucketed window of recent tracking frames the `cts_window_poll` step reads: per camera,
 * the last frame of each `sample_period_s` bucket, oldest first; past `max_frames` the frames
 * are thinned evenly (and the window says it was trimmed).
 */
import type { Knex } from "knex";
import type { TrackingWindow, TrackingWindowFrame, TrackingWindowQuery } from "../../../vocabulary/tracking";
import { framesBetween } from "./cts-frames.store";

export async function trackingWindow(db: Knex, q: TrackingWindowQuery): Promise<TrackingWindow> {
  const frames = await framesBetween(db, q);
  const periodMs = Math.max(1, q.sample_period_s * 1000);
  const buckets = new Map<string, TrackingWindowFrame>();
  for (const f of frames) {
    const bucket = `${f.camera_id}|${Math.floor(Date.parse(f.event_time) / periodMs)}`;
    // Later frames replace earlier ones: a bucket shows the newest picture of its period.
    buckets.set(bucket, {
      frame_time: f.event_time,
      camera_id: f.camera_id,
      room_name: f.room_name,
      detections: f.detections.map((d) => ({ ph_id: d.ph_id, identity_id: d.identity_id, confidence: d.confidence, posture: d.posture, bbox: d.bbox })),
      identities: [...new Set(f.detections.map((d) => d.identity_id).filter((id): id is string => id !== null))],
    });
  }
  const sampled = [...buckets.values()].sort((a, b) => a.frame_time.localeCompare(b.frame_time));
  if (sampled.length <= q.max_frames) return { frames: sampled, trimmed: false };
  const step = sampled.length / q.max_frames;
  return { frames: Array.from({ length: q.max_frames }, (_, i) => sampled[Math.floor(i * step)]), trimmed: true };
}
