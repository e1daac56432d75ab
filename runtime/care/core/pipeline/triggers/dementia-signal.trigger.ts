/**
 * dementia_signal rules: a signal the tracking consumer stored and its person's profile lets
 * alert (`cts.signal` on the bus) fires every enabled rule with that trigger type; the rule's
 * `dementia_signal` filter then judges that very signal (its `signal_id` is in the payload).
 * The stored signal stays `pending` until its rules were fired, so signals committed just
 * before a crash fire at the next start, or, with several instances, when another instance
 * takes over the streams (`cts.consuming`): an alert may come twice, never not at all.
 */
import type { CareContext } from "../../context";
import { findSignals, markSignalFired, pendingAlertSignals, type DementiaSignal } from "../../../../household/tracking/signals.store";
import { triggerContext, type RuleFirer } from "../engine/types";
import { leasesOf } from "../../../../platform/cluster/cluster";
import { CTS_LEASE } from "../../../../household/cts/cts-streams";
import { fireLogged, Inflight, rulesWithTrigger, type Trigger } from "./trigger-kit";

export class DementiaSignalTrigger implements Trigger {
  private readonly inflight: Inflight;
  private unsubscribe: Array<() => void> = [];
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: CareContext,
    private readonly firer: RuleFirer,
  ) {
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "dementia_signal trigger failed"));
  }

  start(): void {
    if (this.unsubscribe.length) return;
    this.unsubscribe = [
      this.ctx.bus.subscribe("cts.signal", ({ signal_id }) => this.serial(() => this.fireStored(signal_id))),
      this.ctx.bus.subscribe("cts.consuming", () => this.firePending()),
    ];
    // The instance that consumes the streams may have taken them before this trigger listened.
    if (!this.ctx.settings.cts.enabled || leasesOf(this.ctx).holds(CTS_LEASE)) this.firePending();
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** What was committed but not fired before the last stop or crash, here or on the instance that consumed the streams before. */
  private firePending(): void {
    this.serial(async () => {
      for (const s of await pendingAlertSignals(this.ctx.db)) await this.fire(s);
    });
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  /** One signal at a time, in the order they were committed. */
  private serial(work: () => Promise<void>): void {
    this.tail = this.tail.then(work);
    this.inflight.track(this.tail);
  }

  private async fireStored(signalId: string): Promise<void> {
    const [signal] = await findSignals(this.ctx.db, { signal_id: signalId });
    if (signal) await this.fire(signal);
  }

  private async fire(signal: DementiaSignal): Promise<void> {
    const rules = await rulesWithTrigger(this.ctx, "dementia_signal");
    const trigger = triggerContext({
      trigger_type: "dementia_signal",
      webhook_payload: {
        signal_id: signal.signal_id,
        person_id: signal.person_id,
        kind: signal.kind,
        severity: signal.severity,
        signal: { ...signal },
      },
    });
    for (const rule of rules) await fireLogged(this.ctx, this.firer, { rule_id: rule.id, trigger });
    await markSignalFired(this.ctx.db, signal.signal_id);
  }
}
