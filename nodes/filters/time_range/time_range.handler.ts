import type { z } from "zod";
import type { FilterHandler } from "../../_kit/handler-types";
import { hhmm, minutesOfDay } from "../../_kit/values";
import type { spec } from "./time_range.node";

type Config = z.output<typeof spec.config>;

/** Passes when the household's local time (to the minute) lies in the range, both ends included. */
export const handler: FilterHandler<Config> = async (ctx, _input, config) => {
  const { time } = ctx.services;
  const tz = time.zone();
  const local = time.localParts(ctx.clock.now());
  const now = local.hour * 60 + local.minute;
  const start = minutesOfDay(config.start_time);
  const end = minutesOfDay(config.end_time);
  // start > end spans midnight: 22:00-06:00 is "from 22:00 or until 06:00".
  const pass = start <= end ? now >= start && now <= end : now >= start || now <= end;
  const range = `${config.start_time}-${config.end_time}`;
  return { pass, reason: `time_range: ${hhmm(local)} is ${pass ? "inside" : "outside"} ${range} (${tz})` };
};
