/**
 * What every trigger shares: the current rules read from the flows, a sensor's room,
 * firing through the engine without letting one failure stop the trigger, and a way for
 * tests to wait until the work a trigger started has finished.
 */
import type { CareContext } from "../../context";
import { sensorRoomName } from "../../../../household/sensors/sensors.service";
import { listRules } from "../../rules/rule-read";
import type { RuleView } from "../../rules/rule-model";
import type { FireRequest, FireResult, RuleFirer } from "../engine/types";

export interface Trigger {
  start(): void;
  stop(): void;
  /** Resolves when the work started so far (reads, fires) has finished; for tests. */
  idle(): Promise<void>;
}

/** The enabled rules with the given trigger type, read now from the flows. */
export async function rulesWithTrigger(ctx: CareContext, triggerType: string): Promise<RuleView[]> {
  return (await listRules(ctx, false)).filter((r) => r.enabled && r.trigger_type === triggerType);
}

export const sensorRoom = (ctx: CareContext, sensorId: string | null): Promise<string | null> => sensorRoomName(ctx, sensorId);

/** Fires and logs the outcome; a firer that throws is logged, never rethrown into a bus or timer. */
export async function fireLogged(ctx: CareContext, firer: RuleFirer, req: FireRequest): Promise<FireResult | null> {
  try {
    const result = await firer.fire(req);
    if (result.execution_id === null)
      ctx.log.debug({ rule_id: req.rule_id, trigger_type: req.trigger.trigger_type, reason: result.reason }, "rule not started");
    return result;
  } catch (err) {
    ctx.log.error({ err, rule_id: req.rule_id, trigger_type: req.trigger.trigger_type }, "firing the rule failed");
    return null;
  }
}

/** Tracks promises a trigger started so `idle()` can wait for them (and for what they start in turn). */
export class Inflight {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly onError: (err: unknown) => void) {}

  track(p: Promise<unknown>): void {
    const tracked = p.catch(this.onError).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}
