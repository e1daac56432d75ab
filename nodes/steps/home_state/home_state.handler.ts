import type { z } from "zod";
import type { PresenceStatus } from "../../../vocabulary/presence";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./home_state.node";

type Config = z.output<typeof spec.config>;

/** Four booleans from the person's presence; all four false when presence cannot be read. */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const { presence } = ctx.services;
  const personId = presence.personIdFrom(config.person_id, input.pipeline_data);
  let status: PresenceStatus | null = null;
  try {
    status = (await presence.resolve(personId, ctx.clock.now())).status;
  } catch (err) {
    ctx.log.warn({ err, person_id: personId }, "home_state: presence unavailable");
  }
  const s = presence.homeStates(status);
  const k = config.output_key;
  return {
    data: {
      [`${k}_at_home`]: s.at_home,
      [`${k}_asleep`]: s.asleep,
      [`${k}_away`]: s.away,
      [`${k}_state_unknown`]: s.state_unknown,
    },
  };
};
