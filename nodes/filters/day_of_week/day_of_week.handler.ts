import type { z } from "zod";
import type { FilterHandler } from "../../_kit/handler-types";
import { WEEKDAY_NAMES } from "../../_kit/values";
import type { spec } from "./day_of_week.node";

type Config = z.output<typeof spec.config>;

/** Passes on the listed local weekdays (0 = Monday); an empty list lets nothing through. */
export const handler: FilterHandler<Config> = async (ctx, _input, config) => {
  const { time } = ctx.services;
  const tz = time.zone();
  const today = time.localParts(ctx.clock.now()).weekday;
  const name = WEEKDAY_NAMES[today];
  if (config.days.length === 0) return { pass: false, reason: `day_of_week: no days are listed (today is ${name})` };
  const pass = config.days.includes(today);
  const listed = [...new Set(config.days)]
    .sort()
    .map((d) => WEEKDAY_NAMES[d])
    .join(", ");
  return { pass, reason: `day_of_week: ${name} is ${pass ? "one" : "not one"} of ${listed} (${tz})` };
};
