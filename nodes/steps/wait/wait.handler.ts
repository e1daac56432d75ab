import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./wait.node";

type Config = z.output<typeof spec.config>;

const DEFAULT_WAIT_MINUTES = 5;

/** Parks the run until now + duration; the engine persists the wait and resumes it. */
export const handler: StepHandler<Config> = (ctx, _input, config) => {
  const minutes = config.duration_minutes ?? config.minutes ?? DEFAULT_WAIT_MINUTES;
  const now = ctx.clock.now();
  return { wait_until: now + minutes * 60_000, data: { wait_started: new Date(now).toISOString() } };
};
