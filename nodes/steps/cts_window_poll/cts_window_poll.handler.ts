import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./cts_window_poll.node";

type Config = z.output<typeof spec.config>;

const WHY = "the continuous-tracking window source (bucketizer) is not wired";

/**
 * The spec's answer without the bucketizer, which is not wired yet: a warning and an empty
 * window over the requested span with `partial` true. The step succeeds and the run goes on.
 */
export const handler: StepHandler<Config> = (ctx, input, config) => {
  ctx.log.debug({}, `cts_window_poll: ${WHY}`);
  const now = ctx.clock.now();
  return {
    data: {
      trigger_id: `window-${input.idempotency_key}`,
      window_start: new Date(now - config.lookback_s * 1000).toISOString(),
      window_end: new Date(now - config.lookback_s * 1000 + config.duration_s * 1000).toISOString(),
      cameras: [...config.cameras],
      rooms: [...config.rooms],
      frames: [],
      summary: { distinct_identities: 0, detection_count: 0, rooms: [] },
      partial: true,
    },
    warning: `tracking window empty: ${WHY}`,
  };
};
