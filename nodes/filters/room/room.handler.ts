import type { z } from "zod";
import type { FilterHandler } from "../../_kit/handler-types";
import type { spec } from "./room.node";

type Config = z.output<typeof spec.config>;

/** Passes when the trigger's room is listed; an event without a room never does. */
export const handler: FilterHandler<Config> = async (ctx, input, config) => {
  const room = input.trigger.room_name;
  const listed = config.room_names.join(", ");
  if (config.room_names.length === 0) return { pass: false, reason: "room: no rooms are listed" };
  if (!room) return { pass: false, reason: `room: the event has no room (listed: ${listed})` };
  const pass = config.room_names.some((name) => ctx.services.names.same(name, room));
  return { pass, reason: pass ? `room: ${room} is one of ${listed}` : `room: ${room} is not one of ${listed}` };
};
