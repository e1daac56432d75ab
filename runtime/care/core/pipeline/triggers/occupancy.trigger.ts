/**
 * occupancy_duration rules: presence events on the bus (`sensor.event` of kind `presence`,
 * from whichever source publishes them) tell which sensors are occupied
 * since when. When a sensor has been continuously occupied for a rule's
 * `occupancy_config.min_minutes`, the rule fires once for that occupied period, with
 * `occupancy_duration_minutes` in its trigger context. Leaving ends the period; the next
 * arrival starts a new one. Timers are armed with `ctx.clock.at()`.
 *
 * Occupancy is in memory: after a restart a sensor counts as occupied from its next
 * `occupied: true` event.
 *
 * Several instances: this trigger runs on the `occupancy` lease holder, which also follows the
 * presence changes every instance records (occupancy-presence.ts) every second, so it learns of
 * events that reached other instances and, on taking the lease, rebuilds the periods. Each rule
 * fired for a period is claimed by a row first, so a period fires once across a change of holder.
 */
import type { CareContext } from "../../context";
import { ADOPT_EVERY_MS, clustered, repeatOnClock } from "../../../../platform/cluster/adopt";
import type { SensorEvent } from "../../../../platform/core/event-bus";
import type { RuleView } from "../../rules/rule-model";
import { triggerContext, type RuleFirer } from "../engine/types";
import { claimOccupancyFire, presenceOf, presenceStates } from "./occupancy.store";
import { presenceAt } from "./occupancy-presence";
import { fireLogged, Inflight, rulesWithTrigger, sensorRoom, type Trigger } from "./trigger-kit";

const MINUTE_MS = 60_000;

interface Period {
  since: number;
  /** Rules already fired in this period. */
  fired: Set<number>;
  /** Armed timers by rule id, with the due time they were armed for. */
  timers: Map<number, { at: number; cancel: () => void }>;
}

const dueOf = (r: RuleView, since: number): number | null => (r.occupancy_config ? since + r.occupancy_config.min_minutes * MINUTE_MS : null);

export class OccupancyTrigger implements Trigger {
  private readonly periods = new Map<string, Period>();
  /** Cluster: the time of the latest change of each sensor known here (older recorded ones are stale). */
  private readonly known = new Map<string, number>();
  private readonly inflight: Inflight;
  private unsubscribers: Array<() => void> = [];
  private stopFollowing: (() => Promise<void>) | null = null;

  constructor(
    private readonly ctx: CareContext,
    private readonly firer: RuleFirer,
  ) {
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "occupancy_duration trigger failed"));
  }

  start(): void {
    if (this.unsubscribers.length) return;
    this.unsubscribers = [
      this.ctx.bus.subscribe("sensor.event", (e) => {
        if (e.kind === "presence") this.onPresence(e);
      }),
      this.ctx.bus.subscribe("rules.changed", () => this.inflight.track(this.rearmAll())),
    ];
    if (clustered(this.ctx))
      this.stopFollowing = repeatOnClock(
        this.ctx.clock,
        ADOPT_EVERY_MS,
        () => {
          const following = this.follow();
          this.inflight.track(following);
          return following;
        },
        (err) => this.ctx.log.error({ err }, "occupancy: reading presence failed"),
      );
  }

  stop(): void {
    for (const u of this.unsubscribers) u();
    this.unsubscribers = [];
    const following = this.stopFollowing;
    this.stopFollowing = null;
    if (following) this.inflight.track(following());
    for (const p of this.periods.values()) for (const t of p.timers.values()) t.cancel();
    this.periods.clear();
    this.known.clear();
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  /** Sensors occupied now, with when their period began; for diagnostics and tests. */
  occupiedSince(): Map<string, number> {
    return new Map([...this.periods].map(([id, p]) => [id, p.since]));
  }

  private onPresence(e: Extract<SensorEvent, { kind: "presence" }>): void {
    const at = presenceAt(e, this.ctx.clock.now());
    this.known.set(e.sensor_id, Math.max(at, this.known.get(e.sensor_id) ?? -Infinity));
    if (!e.occupied) return this.endPeriod(e.sensor_id);
    if (this.periods.has(e.sensor_id)) return; // still the same continuous period
    this.startPeriod(e.sensor_id, at);
  }

  private endPeriod(sensorId: string): void {
    const current = this.periods.get(sensorId);
    if (current) for (const t of current.timers.values()) t.cancel();
    this.periods.delete(sensorId);
  }

  private startPeriod(sensorId: string, since: number): void {
    const period: Period = { since, fired: new Set(), timers: new Map() };
    this.periods.set(sensorId, period);
    this.inflight.track(this.armSensor(sensorId, period));
  }

  /** Cluster: applies the recorded changes newer than what is known here (events that reached other instances). */
  private async follow(): Promise<void> {
    for (const row of await presenceStates(this.ctx.db)) {
      if (row.at <= (this.known.get(row.sensor_id) ?? -Infinity)) continue;
      this.known.set(row.sensor_id, row.at);
      if (!row.occupied) {
        this.endPeriod(row.sensor_id);
        continue;
      }
      if (this.periods.get(row.sensor_id)?.since === row.at) continue;
      this.endPeriod(row.sensor_id); // left and came back meanwhile: a new period
      this.startPeriod(row.sensor_id, row.at);
    }
  }

  /**
   * Cluster: may the rule fire for this period? Not when the recorded state changed between its
   * start and its due time (it ended elsewhere; the next round ends it here), nor when another
   * holder fired it already (the claim).
   */
  private async claim(sensorId: string, period: Period, ruleId: number, dueAt: number): Promise<boolean> {
    const row = await presenceOf(this.ctx.db, sensorId);
    if (row && row.at > period.since && row.at < dueAt) return false;
    return claimOccupancyFire(this.ctx.db, ruleId, sensorId, period.since, this.ctx.clock.now());
  }

  private async rulesFor(sensorId: string): Promise<RuleView[]> {
    return (await rulesWithTrigger(this.ctx, "occupancy_duration")).filter((r) => r.primary_sensor_id === sensorId && r.occupancy_config);
  }

  private async rearmAll(): Promise<void> {
    const rules = await rulesWithTrigger(this.ctx, "occupancy_duration");
    for (const [sensorId, period] of this.periods) {
      this.arm(
        sensorId,
        period,
        rules.filter((r) => r.primary_sensor_id === sensorId && r.occupancy_config),
      );
    }
  }

  private async armSensor(sensorId: string, period: Period): Promise<void> {
    this.arm(sensorId, period, await this.rulesFor(sensorId));
  }

  /** Arms one timer per rule not yet fired in this period; drops timers of rules that are gone or changed. */
  private arm(sensorId: string, period: Period, rules: RuleView[]): void {
    if (this.periods.get(sensorId) !== period) return; // the sensor was left while the rules were read
    const wanted = new Map(rules.map((r) => [r.id, dueOf(r, period.since)]));
    for (const [ruleId, t] of period.timers) {
      if (wanted.get(ruleId) !== t.at) {
        t.cancel();
        period.timers.delete(ruleId);
      }
    }
    for (const [ruleId, at] of wanted) {
      if (at === null || period.fired.has(ruleId) || period.timers.has(ruleId)) continue;
      if (at <= this.ctx.clock.now()) {
        this.due(sensorId, period, ruleId);
        continue;
      }
      const cancel = this.ctx.clock.at(at, () => this.due(sensorId, period, ruleId));
      period.timers.set(ruleId, { at, cancel });
    }
  }

  private due(sensorId: string, period: Period, ruleId: number): void {
    period.timers.delete(ruleId);
    if (this.periods.get(sensorId) !== period || period.fired.has(ruleId)) return;
    period.fired.add(ruleId);
    this.inflight.track(this.fireIfStillDue(sensorId, period, ruleId, this.ctx.clock.now()));
  }

  /** The rule is read again when due: if it changed unannounced, re-arm instead of firing early. */
  private async fireIfStillDue(sensorId: string, period: Period, ruleId: number, dueAt: number): Promise<void> {
    const rules = await this.rulesFor(sensorId);
    const rule = rules.find((r) => r.id === ruleId);
    const at = rule ? dueOf(rule, period.since) : null;
    if (!rule || at === null || at > dueAt) {
      period.fired.delete(ruleId);
      this.arm(sensorId, period, rules);
      return;
    }
    if (clustered(this.ctx) && !(await this.claim(sensorId, period, ruleId, dueAt))) return;
    // Occupied for min_minutes when it fell due: it fires even if the room was left since.
    const trigger = triggerContext({
      trigger_type: "occupancy_duration",
      sensor_id: sensorId,
      room_name: await sensorRoom(this.ctx, sensorId),
      occupancy_duration_minutes: (dueAt - period.since) / MINUTE_MS,
    });
    await fireLogged(this.ctx, this.firer, { rule_id: ruleId, trigger });
  }
}
