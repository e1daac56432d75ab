import type { z } from "zod";
import type { PresenceStatus } from "../../../vocabulary/presence";
import type { FilterHandler } from "../../_kit/handler-types";
import type { spec } from "./home_state.node";

type Config = z.output<typeof spec.config>;

/**
 * Passes when the person is in `state`, read like the home_state step: at_home (present in
 * a room or at home, or asleep), asleep, away, or state_unknown (no location, or stale after
 * person_tracking.stale_timeout_minutes). When presence cannot be read, no state holds.
 */
export const handler: FilterHandler<Config> = async (ctx, _input, config) => {
  const who = config.person_id.trim();
  if (!who) return { pass: false, reason: "home_state: no person_id is set" };
  const { presence } = ctx.services;
  let status: PresenceStatus;
  try {
    status = (await presence.resolve(who, ctx.clock.now())).status;
  } catch (err) {
    ctx.log.warn({ err, person_id: who }, "home_state filter: presence unavailable");
    return { pass: false, reason: `home_state: presence of ${who} is unavailable` };
  }
  const states = presence.homeStates(status);
  const pass = states[config.state];
  const current = (Object.keys(states) as Array<keyof typeof states>).filter((k) => states[k]).join(", ") || "none";
  return { pass, reason: `home_state: ${who} is ${current} (presence ${status})${pass ? "" : `, not ${config.state}`}` };
};
