import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import { emptyWindowPayload, windowPayload } from "../../_kit/tracking-window-payload";
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
  const b = { trigger_id: `window-${input.idempotency_key}`, startMs: start, endMs: end };
  const window = await ctx.services.tracking.window({
    since: new Date(start).toISOString(),
    until: new Date(Math.min(end, now)).toISOString(),
    sample_period_s: config.sample_period_s,
    cameras: config.cameras,
    rooms: config.rooms,
    max_frames: config.max_frames,
  });
  if (!window) {
    ctx.log.debug({}, `cts_window_poll: ${OFF}`);
    return { data: emptyWindowPayload(b, config), warning: `tracking window empty: ${OFF}` };
  }
  return { data: windowPayload(b, window) };
};
