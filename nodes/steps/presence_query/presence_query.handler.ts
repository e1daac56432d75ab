import type { z } from "zod";
import type { Presence } from "../../../vocabulary/presence";
import type { DementiaSignal } from "../../../vocabulary/tracking";
import type { StepHandler } from "../../_kit/handler-types";
import { atLeast, isoAt } from "../../_kit/values";
import { SIGNAL_SEVERITIES } from "../../filters/dementia_signal/dementia_signal.node";
import type { spec } from "./presence_query.node";

type Config = z.output<typeof spec.config>;

/**
 * Where the person is (the presence service: runtime/tracking/presence.ts) and their dementia signals created
 * in the last signal_window_minutes, newest first. Signals are reported also when the
 * location is unknown or stale: an `absence` signal matters most exactly then. When the
 * store cannot be read the status is unknown and the run goes on.
 */
export const handler: StepHandler<Config> = async (ctx, input, config) => {
  const { presence: people, signals: signalStore } = ctx.services;
  const now = ctx.clock.now();
  const personId = people.personIdFrom(config.person_id, input.pipeline_data);
  let presence: Presence;
  let signals: DementiaSignal[] = [];
  try {
    presence = await people.resolve(personId, now);
    if (personId) {
      signals = (
        await signalStore.find({
          person_ids: [personId],
          kinds: config.signal_kind ? [config.signal_kind] : [],
          created_between: [isoAt(now - config.signal_window_minutes * 60_000), isoAt(now)],
        })
      ).filter((s) => atLeast(SIGNAL_SEVERITIES, s.severity, config.signal_severity_min));
    }
  } catch (err) {
    ctx.log.warn({ err, person_id: personId }, "presence_query: presence unavailable");
    presence = people.unknown(personId);
  }
  const k = config.output_key;
  const flags = people.homeStates(presence.status);
  return {
    data: {
      [`${k}_status`]: presence.status,
      [`${k}_room_name`]: presence.room_name,
      [`${k}_room_id`]: presence.room_id,
      [`${k}_dwell_minutes`]: presence.dwell_minutes,
      [`${k}_confidence`]: presence.confidence,
      [`${k}_signals`]: signals.map(({ id: _id, ...s }) => s),
      [`${k}_providers`]: presence.providers,
      [`${k}_timestamp`]: presence.timestamp,
      presence_at_home: flags.at_home,
      presence_asleep: flags.asleep,
      presence_away: flags.away,
    },
  };
};
