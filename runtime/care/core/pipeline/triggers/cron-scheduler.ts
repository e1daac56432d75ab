/**
 * cron rules: every enabled rule with trigger_type `cron` fires at its `schedule_cron` in
 * `app.timezone` (DST rules in `cron-schedule.ts`). Each rule's next run is armed with
 * `ctx.clock.at()`, so a ManualClock drives it in tests.
 *
 * The armed set follows the rules: it is rebuilt on `rules.changed`, every `resyncMs`
 * (so a missed publish only delays a new schedule, never loses it), and whenever a due
 * rule turns out to have changed. Runs missed while the process was down or the machine
 * slept are not caught up: the next run is computed from the later of the due time and now.
 */
import type { CareContext } from "../../context";
import { leasesOf } from "../../../../platform/cluster/cluster";
import type { RuleView } from "../../rules/rule-model";
import { triggerContext, type RuleFirer } from "../engine/types";
import { nextCronTime, parseCron, type CronFields } from "../../language/cron-schedule";
import { fireLogged, Inflight, rulesWithTrigger, sensorRoom, type Trigger } from "./trigger-kit";

export interface CronSchedulerOptions {
  /** Re-read the rules this often even without `rules.changed`; 0 turns it off. Default 5 minutes. */
  resyncMs?: number;
}

interface Armed {
  /** Schedule and zone the timer was computed for; a rule whose key changed is re-armed. */
  key: string;
  fields: CronFields;
  timeZone: string;
  at: number;
  cancel: () => void;
}

const keyOf = (r: RuleView, timeZone: string): string => `${r.schedule_cron ?? ""}\u0000${timeZone}`;

export class CronScheduler implements Trigger {
  private readonly armed = new Map<number, Armed>();
  private readonly inflight: Inflight;
  private unsubscribe: (() => void) | null = null;
  private cancelResync: (() => void) | null = null;
  private generation = 0;
  private running = false;
  private readonly resyncMs: number;

  constructor(
    private readonly ctx: CareContext,
    private readonly firer: RuleFirer,
    opts: CronSchedulerOptions = {},
  ) {
    this.resyncMs = opts.resyncMs ?? 5 * 60_000;
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "cron trigger failed"));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.ctx.bus.subscribe("rules.changed", () => this.reload());
    this.armResync();
    this.reload();
  }

  stop(): void {
    this.running = false;
    this.generation++;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.cancelResync?.();
    this.cancelResync = null;
    for (const a of this.armed.values()) a.cancel();
    this.armed.clear();
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  /** When each armed rule runs next (epoch ms), for diagnostics and tests. */
  nextRuns(): Map<number, number> {
    return new Map([...this.armed].map(([id, a]) => [id, a.at]));
  }

  /** Re-read the cron rules and re-arm what changed; later calls supersede earlier ones. */
  reload(): void {
    const gen = ++this.generation;
    this.inflight.track(
      rulesWithTrigger(this.ctx, "cron").then((rules) => {
        if (gen === this.generation && this.running) this.sync(rules);
      }),
    );
  }

  private armResync(): void {
    if (!this.resyncMs) return;
    this.cancelResync = this.ctx.clock.at(this.ctx.clock.now() + this.resyncMs, () => {
      if (!this.running) return;
      this.armResync();
      this.reload();
    });
  }

  private sync(rules: RuleView[]): void {
    const timeZone = this.ctx.settings.app.timezone;
    const wanted = new Map(rules.map((r) => [r.id, r]));
    for (const [id, a] of this.armed) {
      const r = wanted.get(id);
      if (!r || keyOf(r, timeZone) !== a.key) {
        a.cancel();
        this.armed.delete(id);
      }
    }
    for (const r of rules) {
      if (this.armed.has(r.id)) continue;
      const fields = r.schedule_cron ? parseCron(r.schedule_cron) : null;
      if (!fields) {
        this.ctx.log.warn({ rule_id: r.id, schedule_cron: r.schedule_cron }, "cron rule has no valid schedule; it will not fire");
        continue;
      }
      this.arm(r.id, keyOf(r, timeZone), fields, timeZone, this.ctx.clock.now());
    }
  }

  private arm(ruleId: number, key: string, fields: CronFields, timeZone: string, afterMs: number): void {
    const at = nextCronTime(fields, afterMs, timeZone);
    if (at === null) {
      this.ctx.log.warn({ rule_id: ruleId }, "cron schedule never fires again");
      return;
    }
    const entry: Armed = { key, fields, timeZone, at, cancel: () => undefined };
    entry.cancel = this.ctx.clock.at(at, () => this.due(ruleId, entry));
    this.armed.set(ruleId, entry);
  }

  private due(ruleId: number, entry: Armed): void {
    if (!this.running || this.armed.get(ruleId) !== entry) return;
    // Re-arm at once (not after the async fire) so the schedule never stalls on a slow read.
    this.arm(ruleId, entry.key, entry.fields, entry.timeZone, Math.max(entry.at, this.ctx.clock.now()));
    this.inflight.track(this.fireIfCurrent(ruleId, entry.key));
  }

  /** The rule is read again before firing: if it changed and no one said so, re-sync instead. */
  private async fireIfCurrent(ruleId: number, key: string): Promise<void> {
    const rule = (await rulesWithTrigger(this.ctx, "cron")).find((r) => r.id === ruleId);
    if (!rule || keyOf(rule, this.ctx.settings.app.timezone) !== key) {
      this.reload();
      return;
    }
    const trigger = triggerContext({ trigger_type: "cron", sensor_id: rule.primary_sensor_id, room_name: await sensorRoom(this.ctx, rule.primary_sensor_id) });
    // A stalled event loop can run a tick's timer after the `cron` lease (start-triggers.ts) ran
    // out and before its deadline stopped us: another instance may fire that tick already.
    if (!this.running || !leasesOf(this.ctx).holds("cron")) return;
    await fireLogged(this.ctx, this.firer, { rule_id: ruleId, trigger });
  }
}
