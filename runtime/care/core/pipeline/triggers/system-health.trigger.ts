/**
 * system_health rules (issue 44 §2): careflow's own parts fire them. The parts watcher
 * publishes each change of a part's state (`part.changed`); a rule whose `system_health_config`
 * names the part (by kind or id) and the change fires once, when the new state has lasted its
 * `min_minutes` and the part is still in it, never again on later ticks. When the part is ok
 * again, a rule that fired for it and wants `came_back` fires once more.
 *
 * What a rule fired is kept in memory: after a restart every part starts ok, so a part still
 * quiet fires again once its silence is seen anew (a caregiver hears it twice, never not at all).
 */
import type { CareContext } from "../../context";
import type { PartChangeEvent } from "../../../../platform/core/event-bus";
import type { PartState } from "../../../../platform/health/parts-board";
import { sensorOfPart } from "../../../../platform/health/parts-watch";
import { systemHealthConfigSchema, type SystemHealthConfig } from "../../../../../nodes/triggers/rule/rule.node";
import type { PartChange } from "../../../../../nodes/_kit/part-kinds";
import type { RuleView } from "../../rules/rule-model";
import { triggerContext, type RuleFirer } from "../engine/types";
import { partSentence } from "./part-sentence";
import { fireLogged, Inflight, sensorRoom, type Trigger } from "./trigger-kit";
import { TriggerRules } from "./trigger-rules";

const DEFAULTS: SystemHealthConfig = systemHealthConfigSchema.parse({});

export const systemHealthConfigOf = (r: RuleView): SystemHealthConfig => r.system_health_config ?? DEFAULTS;

/** Whether a rule watches this part: its kinds or its one part id; neither named = every part. */
export function watchesPart(c: SystemHealthConfig, e: Pick<PartChangeEvent, "part_id" | "kind">): boolean {
  if (c.part_kinds.length === 0 && c.part_id === null) return true;
  return c.part_kinds.includes(e.kind) || c.part_id === e.part_id;
}

/** One rule's view of one part: a fire waiting for the state to last, and what it fired. */
interface Watch {
  cancel: (() => void) | null;
  fired: PartState | null;
}

export class SystemHealthTrigger implements Trigger {
  private readonly watches = new Map<string, Watch>();
  /** Each part's latest state, as the changes said, in the order they happened. */
  private readonly current = new Map<string, { state: PartState; since: string }>();
  private readonly rules: TriggerRules;
  private readonly inflight: Inflight;
  private unsubscribe: (() => void) | null = null;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: CareContext,
    private readonly firer: RuleFirer,
  ) {
    this.rules = new TriggerRules(ctx, "system_health");
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "system_health trigger failed"));
  }

  start(): void {
    if (this.unsubscribe) return;
    this.rules.start();
    this.unsubscribe = this.ctx.bus.subscribe("part.changed", (e) => {
      this.current.set(e.part_id, { state: e.to, since: e.since });
      this.serial(() => this.onChange(e));
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.rules.stop();
    for (const w of this.watches.values()) w.cancel?.();
    this.watches.clear();
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  /** Changes are handled one at a time, in the order they happened. */
  private serial(work: () => Promise<void>): void {
    this.tail = this.tail.then(work);
    this.inflight.track(this.tail);
  }

  private async onChange(e: PartChangeEvent): Promise<void> {
    for (const rule of await this.rules.get()) {
      const config = systemHealthConfigOf(rule);
      if (!watchesPart(config, e)) continue;
      const key = `${rule.id}\u0000${e.part_id}`;
      const watch = this.watches.get(key) ?? { cancel: null, fired: null };
      watch.cancel?.();
      watch.cancel = null;
      if (e.to === "ok") {
        this.watches.delete(key);
        if (watch.fired && config.changes.includes("came_back")) await this.fire(rule, e, "came_back");
        continue;
      }
      this.watches.set(key, watch);
      const change = `went_${e.to}` as PartChange;
      if (!config.changes.includes(change)) continue;
      const due = Date.parse(e.since) + config.min_minutes * 60_000;
      // Seen late (a busy loop, a clock moved far): if the state has lasted already, fire now.
      if (due <= this.ctx.clock.now()) {
        await this.fireIfLasted(rule.id, e, change, watch);
        continue;
      }
      watch.cancel = this.ctx.clock.at(due, () => {
        watch.cancel = null;
        this.serial(() => this.fireIfLasted(rule.id, e, change, watch));
      });
    }
  }

  /** At `since + min_minutes`: fires if the part is still in the state and the rule still wants it. */
  private async fireIfLasted(ruleId: number, e: PartChangeEvent, change: PartChange, watch: Watch): Promise<void> {
    const now = this.current.get(e.part_id);
    if (now?.state !== e.to || now.since !== e.since) return;
    const rule = (await this.rules.get()).find((r) => r.id === ruleId);
    if (!rule || !watchesPart(systemHealthConfigOf(rule), e) || !systemHealthConfigOf(rule).changes.includes(change)) return;
    if (await this.fire(rule, e, change)) watch.fired = e.to;
  }

  /** Fires the rule; true when a run started. */
  private async fire(rule: RuleView, e: PartChangeEvent, change: PartChange): Promise<boolean> {
    const back = change === "came_back";
    const input = {
      part_id: e.part_id,
      part_kind: e.kind,
      part_name: e.name,
      change,
      state: e.to,
      previous_state: e.from,
      since: e.since,
      last_seen: e.last_seen,
      sentence: partSentence(e, back, this.ctx.settings.app.timezone),
      ...(e.detail && !back ? { detail: e.detail } : {}),
    };
    // A device's part is its sensor: the run has its room, for a room filter or the message.
    const sensorId = sensorOfPart(e.part_id);
    const trigger = triggerContext({
      trigger_type: "system_health",
      sensor_id: sensorId,
      room_name: await sensorRoom(this.ctx, sensorId),
      webhook_payload: structuredClone(input),
    });
    const result = await fireLogged(this.ctx, this.firer, { rule_id: rule.id, trigger, trigger_input: input });
    return result?.execution_id !== null && result !== null;
  }
}
