import type { z } from "zod";
import type { RoomTransition } from "../../../vocabulary/tracking";
import type { FilterHandler } from "../../_kit/handler-types";
import { agoText, blankToNull, isoAt } from "../../_kit/values";
import type { spec } from "./room_transition.node";

type Config = z.output<typeof spec.config>;

const rooms = (from: string | null, to: string | null): string => `${from ? ` from ${from}` : ""}${to ? ` to ${to}` : ""}`;

/** Passes when the person made a transition matching every set field in the last `within_minutes`. */
export const handler: FilterHandler<Config> = async (ctx, _input, config) => {
  const who = config.person_id.trim();
  if (!who) return { pass: false, reason: "room_transition: no person_id is set" };
  const semantic = blankToNull(config.semantic);
  const from = blankToNull(config.from_room_name);
  const to = blankToNull(config.to_room_name);
  const now = ctx.clock.now();
  const { names, tracking } = ctx.services;
  const transitions = await tracking.transitions({
    person_id: who,
    since: isoAt(now - config.within_minutes * 60_000),
    until: isoAt(now),
  });
  const matches = (t: RoomTransition): boolean =>
    (semantic === null || t.semantic === semantic) && (from === null || names.same(t.from_room_name, from)) && (to === null || names.same(t.to_room_name, to));
  const found = transitions.find(matches);
  if (found) {
    const how = found.semantic ? `was ${found.semantic}` : "moved";
    const seen = `${who} ${how}${rooms(found.from_room_name, found.to_room_name)} ${agoText(now, found.timestamp)}`;
    return { pass: true, reason: `room_transition: ${seen}` };
  }
  const wanted = `${semantic ? `${semantic} ` : ""}transition${rooms(from, to)}`;
  return { pass: false, reason: `room_transition: no ${wanted} by ${who} in the last ${config.within_minutes} min` };
};
