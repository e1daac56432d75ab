import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./cts_window_poll.node";

type Config = z.output<typeof spec.config>;

const OFF = "continuous tracking is off (cts.enabled is false), so there is no window to read";

/**
 * A window of recent continuous-tracking frames around now: from `lookback_s` ago for
 * `duration_s`, up to now (the step does not wait for frames to come), one frame per camera and
 * `sample_period_s`, at most `max_frames` (`partial` when more were left out). With tracking
 * off the spec's answer: a warning and an empty window with `partial` true; the run goes on.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const now = ctx.clock.now();
  const start = now - config.lookback_s * 1000;
  const end = start + config.duration_s * 1000;
  const base = {
    trigger_id: `window-${input.idempotency_key}`,
    window_start: new Date(start).toISOString(),
    window_end: new Date(end).toISOString(),
  };
  const window = await ctx.services.tracking.window({
    since: base.window_start,
    until: new Date(Math.min(end, now)).toISOString(),
    sample_period_s: config.sample_period_s,
    cameras: config.cameras,
    rooms: config.rooms,
    max_frames: config.max_frames,
  });
  if (!window) {
    ctx.log.debug({}, `cts_window_poll: ${OFF}`);
    return {
      data: {
        ...base,
        cameras: [...config.cameras],
        rooms: [...config.rooms],
        frames: [],
        summary: { distinct_identities: 0, detection_count: 0, rooms: [] },
        partial: true,
      },
      warning: `tracking window empty: ${OFF}`,
    };
  }
  const rooms = [...new Set(window.frames.map((f) => f.room_name).filter((r): r is string => r !== null))];
  const identities = new Set(window.frames.flatMap((f) => f.identities));
  return {
    data: {
      ...base,
      cameras: [...new Set(window.frames.map((f) => f.camera_id))],
      rooms,
      frames: window.frames,
      summary: { distinct_identities: identities.size, detection_count: window.frames.reduce((n, f) => n + f.detections.length, 0), rooms },
      partial: window.trimmed,
    },
  };
};
