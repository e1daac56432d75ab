import type { z } from "zod";
import type { FilterHandler } from "../../_kit/handler-types";
import { agoText, isoAt } from "../../_kit/values";
import type { spec } from "./person_activity.node";

type Config = z.output<typeof spec.config>;

/** Passes when the person has a record of that activity type in the last `within_minutes`. */
export const handler: FilterHandler<Config> = async (ctx, _input, config) => {
  const who = config.person_id.trim();
  const type = config.activity_type.trim();
  if (!who || !type) return { pass: false, reason: "person_activity: person_id and activity_type must be set" };
  const now = ctx.clock.now();
  const records = await ctx.services.activities.between({
    since: isoAt(now - config.within_minutes * 60_000),
    until: isoAt(now),
    person_id: who,
  });
  const found = records.find((r) => ctx.services.names.same(r.activity_type, type));
  const window = `in the last ${config.within_minutes} min`;
  return found
    ? { pass: true, reason: `person_activity: ${who} had ${type} ${agoText(now, found.timestamp)} (${window})` }
    : { pass: false, reason: `person_activity: no ${type} by ${who} ${window}` };
};
