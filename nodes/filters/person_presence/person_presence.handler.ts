import type { z } from "zod";
import type { FilterHandler, FilterResult } from "../../_kit/handler-types";
import { agoText, minutesAgo } from "../../_kit/values";
import type { spec } from "./person_presence.node";

type Config = z.output<typeof spec.config>;

/** The spec fixes this filter's staleness at 30 minutes, apart from person_tracking.stale_timeout_minutes. */
const STALE_AFTER_MINUTES = 30;

/**
 * home: a fresh location in a room; away: a stale location, or a fresh one that says the
 * person left; unknown: no location at all.
 */
export const handler: FilterHandler<Config> = async (ctx, _input, config) => {
  const who = config.person_id.trim();
  if (!who) return { pass: false, reason: "person_presence: no person_id is set" };
  const location = await ctx.services.presence.location(who);
  const now = ctx.clock.now();

  let actual: "home" | "away" | "unknown";
  let where: string;
  if (!location) {
    actual = "unknown";
    where = `${who} has no location`;
  } else if (minutesAgo(now, location.updated_at) > STALE_AFTER_MINUTES) {
    actual = "away";
    where = `${who}'s location is stale (last seen ${agoText(now, location.updated_at)}, counts as away)`;
  } else if (location.room_name === null && location.room_id === null) {
    actual = "away";
    where = `${who} left home ${agoText(now, location.updated_at)}`;
  } else {
    actual = "home";
    where = `${who} is home, in ${location.room_name ?? location.room_id}`;
  }

  const verdict = (pass: boolean, why: string): FilterResult => ({ pass, reason: `person_presence: ${why}` });
  if (actual !== config.status) return verdict(false, `${where}, not ${config.status}`);
  const room = config.status === "home" ? config.room_name?.trim() : undefined;
  if (room && !ctx.services.names.same(location?.room_name, room)) return verdict(false, `${where}, not in ${room}`);
  return verdict(true, where);
};
