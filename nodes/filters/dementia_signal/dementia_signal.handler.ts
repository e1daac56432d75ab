import type { z } from "zod";
import type { CareServices } from "../../_kit/care-services";
import type { DementiaSignal } from "../../../vocabulary/tracking";
import type { FilterHandler, FilterResult, TriggerContext } from "../../_kit/handler-types";
import { agoText, atLeast, isoAt } from "../../_kit/values";
import { SIGNAL_SEVERITIES, type spec } from "./dementia_signal.node";

type Config = z.output<typeof spec.config>;

const verdict = (pass: boolean, why: string): FilterResult => ({ pass, reason: `dementia_signal: ${why}` });
const named = (s: DementiaSignal): string => `${s.severity} ${s.kind} signal of ${s.person_id}`;

/**
 * Passes when an unacknowledged signal of the kinds and people (empty = all) at
 * `severity_min` or above is open, its person's alert profile lets it alert, and no signal of
 * the same kind and person was acknowledged in the last `cooldown_minutes`: whoever answered
 * the last one is not asked again straight away.
 */
export const handler: FilterHandler<Config> = async (ctx, input, config) => {
  const { signals } = ctx.services;
  const wanted =
    `${config.kinds.length > 0 ? `${config.kinds.join(" or ")} signal` : "signal of any kind"} at ${config.severity_min} or above` +
    (config.person_ids.length > 0 ? ` for ${config.person_ids.join(", ")}` : "");

  const open = (await candidates(ctx.services, input.trigger, config)).filter((s) => atLeast(SIGNAL_SEVERITIES, s.severity, config.severity_min));
  if (open.length === 0) return verdict(false, `no unacknowledged ${wanted}`);

  const allowed = await signals.allowedByProfile(open);
  if (allowed.length === 0) return verdict(false, `the ${named(open[0])} is not enabled in ${open[0].person_id}'s alert profile`);

  if (config.cooldown_minutes <= 0) return verdict(true, `the ${named(allowed[0])} is unacknowledged`);
  const now = ctx.clock.now();
  const acknowledged = await signals.find({
    kinds: [...new Set(allowed.map((s) => s.kind))],
    person_ids: [...new Set(allowed.map((s) => s.person_id))],
    acknowledged_between: [isoAt(now - config.cooldown_minutes * 60_000), isoAt(now)],
  });
  const ackOf = (s: DementiaSignal) => acknowledged.find((a) => a.kind === s.kind && a.person_id === s.person_id);
  const fresh = allowed.find((s) => !ackOf(s));
  if (fresh) return verdict(true, `the ${named(fresh)} is unacknowledged`);
  const last = ackOf(allowed[0]) as DementiaSignal;
  const ago = agoText(now, last.acknowledged_at as string);
  return verdict(false, `a ${last.kind} signal of ${last.person_id} was acknowledged ${ago} (cooldown ${config.cooldown_minutes} min)`);
};

/**
 * Unacknowledged signals of the configured kinds and people. A rule started by a signal
 * (trigger type dementia_signal, its `signal_id` in the payload) judges that signal only,
 * so an older open signal of another kind cannot let it through.
 */
async function candidates(services: CareServices, trigger: TriggerContext, config: Config): Promise<DementiaSignal[]> {
  const scope = { kinds: config.kinds, person_ids: config.person_ids, unacknowledged: true };
  const signalId = trigger.trigger_type === "dementia_signal" ? trigger.webhook_payload?.signal_id : undefined;
  if (typeof signalId === "string" && signalId !== "") {
    const known = await services.signals.find({ signal_id: signalId });
    if (known.length > 0) return services.signals.find({ ...scope, signal_id: signalId });
  }
  return services.signals.find(scope);
}
