import type { z } from "zod";
import type { NameServices } from "../../_kit/care-services";
import type { CameraFrame } from "../../../vocabulary/frames";
import type { StepHandler } from "../../_kit/handler-types";
import { isoAt } from "../../_kit/values";
import type { spec } from "./camera_media_poll.node";

type Config = z.output<typeof spec.config>;

/**
 * A snapshot of the camera media cache: each camera's newest images of the last
 * `since_minutes` (`images_per_sensor` of them, or its `sensor_frame_limits` count), at most
 * `max_images` in all, as signed URLs. It reads what is cached and returns at once. With the
 * aggregator off the spec's answer is success false with an empty payload: the run goes on
 * (a failed step is recorded in the run's errors, it does not end the run) and the warning
 * says why.
 */
export const handler: StepHandler<Config> = async (ctx, _input, config) => {
  const now = ctx.clock.now();
  const polled_at = isoAt(now);
  const answer = await ctx.services.media.recentFrames({
    sensor_ids: config.sensor_ids,
    room_names: config.room_names,
    since: isoAt(now - config.since_minutes * 60_000),
    // Bounded by now too, so a frame stamped ahead by a camera's clock waits for its time.
    until: polled_at,
    per_sensor: config.images_per_sensor,
    sensor_limits: config.sensor_frame_limits,
  });
  if (!answer.ok) {
    ctx.log.debug({ reason: answer.reason }, "camera_media_poll: no camera media cache");
    return { success: false, data: {}, error: answer.reason, warning: `no camera images: ${answer.reason}` };
  }
  const cameras = capped(byCamera(answer.value), config.max_images);
  const frames = cameras.flatMap((newest) => (config.chronological ? [...newest].reverse() : newest));
  const sensors = cameras.map((c) => c[0].sensor_id);
  const left = answer.value.length - frames.length;
  return {
    data: {
      images: frames.map((f) => f.url),
      count: frames.length,
      sensor_ids: sensors,
      room_names: distinctRooms(ctx.services.names, frames),
      since_minutes: config.since_minutes,
      polled_at,
    },
    // The media paths, for the person reading the run (the URLs expire, the paths name the files).
    trace: {
      images: frames.map((f) => f.path),
      message: frames.length
        ? `${frames.length} image(s) from ${sensors.join(", ")}${left > 0 ? `; ${left} more left out by max_images ${config.max_images}` : ""}`
        : `no camera images in the last ${config.since_minutes} minute(s)`,
    },
  };
};

/** Each camera's frames, newest first as the service gives them, cameras in its order. */
function byCamera(frames: readonly CameraFrame[]): CameraFrame[][] {
  const groups = new Map<string, CameraFrame[]>();
  for (const f of frames) groups.set(f.sensor_id, [...(groups.get(f.sensor_id) ?? []), f]);
  return [...groups.values()];
}

/**
 * At most `max` frames: every camera's newest, then every camera's second newest, and so on.
 * The cap thins each camera's sequence rather than dropping the last cameras whole, so a
 * poll of many rooms still shows each of them.
 */
function capped(cameras: readonly CameraFrame[][], max: number): CameraFrame[][] {
  const kept = cameras.map(() => 0);
  let total = 0;
  for (let rank = 0; total < max; rank++) {
    const before = total;
    for (let i = 0; i < cameras.length && total < max; i++) {
      if (rank < cameras[i].length) {
        kept[i]++;
        total++;
      }
    }
    if (total === before) break;
  }
  return cameras.map((c, i) => c.slice(0, kept[i])).filter((c) => c.length > 0);
}

/** The frames' rooms, once each in the store's name comparison, in the order first seen. */
function distinctRooms(names: NameServices, frames: readonly CameraFrame[]): string[] {
  const rooms: string[] = [];
  for (const f of frames) if (f.room_name !== null && !rooms.some((r) => names.same(r, f.room_name))) rooms.push(f.room_name);
  return rooms;
}
