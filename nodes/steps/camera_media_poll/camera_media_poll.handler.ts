import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./camera_media_poll.node";

type Config = z.output<typeof spec.config>;

const WHY = "the camera media cache (event aggregator) is not available in this installation";

/**
 * The spec's answer when the aggregator is missing, which it is until the camera media cache
 * is built: success false with an empty payload. The run goes on (a failed step result is
 * recorded in the run's errors, it does not end the run) and the warning says why.
 */
export const handler: StepHandler<Config> = (ctx) => {
  ctx.log.debug({}, `camera_media_poll: ${WHY}`);
  return { success: false, data: {}, error: WHY, warning: `no camera images: ${WHY}` };
};
