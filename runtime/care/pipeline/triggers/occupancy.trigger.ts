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
 */
import type { CareContext } from "../../context";
import type { SensorEvent } from "../../../platform/core/event-bus";
import type { RuleView } from "../../rules/rule-model";
import { triggerContext, type RuleFirer } from "../engine/types";
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
  private readonly inflight: Inflight;
  private unsubscribers: Array<() => void> = [];

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
  }

  stop(): void {
    for (const u of this.unsubscribers) u();
    this.unsubscribers = [];
    for (const p of this.periods.values()) for (const t of p.timers.values()) t.cancel();
    this.periods.clear();
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  /** Sensors occupied now, with when their period began; for diagnostics and tests. */
  occupiedSince(): Map<string, number> {
    return new Map([...this.periods].map(([id, p]) => [id, p.since]));
  }

  private onPresence(e: Extract<SensorEvent, { kind: "presence" }>): void {
    const current = this.periods.get(e.sensor_id);
    if (!e.occupied) {
      if (current) for (const t of current.timers.values()) t.cancel();
      this.periods.delete(e.sensor_id);
      return;
    }
    if (current) return; // still the same continuous period
    const now = this.ctx.clock.now();
    const since = Number.isFinite(e.at) && e.at <= now ? e.at : now;
    const period: Period = { since, fired: new Set(), timers: new Map() };
    this.periods.set(e.sensor_id, period);
    this.inflight.track(this.armSensor(e.sensor_id, period));
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
