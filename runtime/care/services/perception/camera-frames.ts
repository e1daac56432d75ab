/**
 * The camera media cache as `camera_media_poll` reads it: the media store's newest frames per
 * camera, each with a signed URL. The cache is the event aggregator's: with
 * `aggregator.enabled` false there is none to read, and the answer says so (the step then
 * gives the spec's success=false with an empty payload).
 */
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import type { CameraFrame, RecentFramesQuery } from "../../../../vocabulary/frames";
import type { CareContext } from "../../core/context";
import { newestFramesPerCamera, signedUrl, type MediaRow } from "../../../household/media/media.service";

export const AGGREGATOR_OFF = "the event aggregator is off (aggregator.enabled is false), so there is no camera media cache to read";

export async function recentCameraFrames(ctx: CareContext, q: RecentFramesQuery): Promise<ServiceAnswer<CameraFrame[]>> {
  if (!ctx.settings.aggregator.enabled) return { ok: false, reason: AGGREGATOR_OFF };
  const rows = await newestFramesPerCamera(ctx, {
    sensor_ids: q.sensor_ids,
    room_names: q.room_names,
    from: q.since,
    to: q.until,
    per_sensor: q.per_sensor,
    sensor_limits: q.sensor_limits,
  });
  const frames: CameraFrame[] = [];
  for (const row of rows.filter(hasObject)) {
    frames.push({
      media_id: row.id,
      sensor_id: row.sensor_id,
      room_name: row.room_name,
      captured_at: row.captured_at,
      path: row.path,
      url: await signedUrl(ctx, row.object_name),
      labels: row.labels,
    });
  }
  return { ok: true, value: frames };
}

/** The store gives only rows with an object here; the guard tells the compiler. */
const hasObject = (row: MediaRow): row is MediaRow & { object_name: string } => row.object_name !== null;
