/**
 * cts_window rules: the app clock cuts time into windows of each rule's `duration_s`
 * (aligned to the epoch, so every rule of one length shares its windows). When a window has
 * closed, its stored tracking frames of the rule's cameras and rooms are read as the bucketed
 * window the `cts_window_poll` step reads; with at least `min_detections` detections and
 * `min_identities` distinct known people the rule fires, the window in its payload and at the
 * top of the run's pipeline_data. Only while continuous tracking is on (`cts.enabled`).
 *
 * A window is read `SETTLE_MS` after it closed: a frame is stored after its message was
 * committed, a moment after it was captured. A frame committed later still (a slow camera, a
 * backlog after a broker hiccup) within `LATE_MS` of the close has the window read again, and a
 * window that now meets the thresholds fires then; a window fires at most once. Windows missed
 * while stopped are not caught up.
 */
import type { CareContext } from "../../context";
import { trackingWindow } from "../../../../household/cts/tracking-window";
import { windowPayload, type WindowPayload } from "../../../../../nodes/_kit/tracking-window-payload";
import { ctsWindowConfigSchema, type CtsWindowConfig } from "../../../../../nodes/triggers/rule/rule.node";
import type { RuleView } from "../../rules/rule-model";
import { triggerContext, type RuleFirer } from "../engine/types";
import { fireLogged, Inflight, rulesWithTrigger, type Trigger } from "./trigger-kit";

export const SETTLE_MS = 1000;
/** How long after its close a window still takes late frames. */
export const LATE_MS = 60_000;

const DEFAULTS: CtsWindowConfig = ctsWindowConfigSchema.parse({});

export const windowConfigOf = (r: RuleView): CtsWindowConfig => r.cts_window_config ?? DEFAULTS;

/** The end of the first window that closes after `now`. */
export const nextWindowEnd = (now: number, durationS: number): number => {
  const ms = durationS * 1000;
  return (Math.floor(now / ms) + 1) * ms;
};

/** A rule's last closed window: read again when late frames land in it, until it fired. */
interface Closed {
  end: number;
  config: CtsWindowConfig;
  fired: boolean;
  /** Reads of one window run one after another, so two cannot both fire it. */
  chain: Promise<void>;
}

interface Armed {
  /** The window end this timer reads. */
  end: number;
  /** The config it was armed with: a changed rule is re-armed. */
  key: string;
  cancel: () => void;
}

export class CtsWindowTrigger implements Trigger {
  private readonly timers = new Map<number, Armed>();
  private readonly closed = new Map<number, Closed>();
  private readonly inflight: Inflight;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: CareContext,
    private readonly firer: RuleFirer,
  ) {
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "cts_window trigger failed"));
  }

  start(): void {
    if (this.unsubscribe || !this.ctx.settings.cts.enabled) return;
    const offRules = this.ctx.bus.subscribe("rules.changed", () => this.inflight.track(this.rearm()));
    const offFrames = this.ctx.bus.subscribe("cts.frames", (e) => this.lateFrames(e.earliest_ms));
    this.unsubscribe = () => {
      offRules();
      offFrames();
    };
    this.inflight.track(this.rearm());
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.closed.clear();
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  /** Rule ids with a window armed, and the window end each reads; for tests. */
  armed(): Map<number, number> {
    return new Map([...this.timers].map(([id, t]) => [id, t.end]));
  }

  private async rearm(): Promise<void> {
    if (!this.unsubscribe) return;
    const rules = await rulesWithTrigger(this.ctx, "cts_window");
    const wanted = new Map(rules.map((r) => [r.id, windowConfigOf(r)]));
    for (const [id, t] of this.timers) {
      const config = wanted.get(id);
      if (!config || JSON.stringify(config) !== t.key) {
        t.cancel();
        this.timers.delete(id);
      }
    }
    for (const [id, config] of wanted) if (!this.timers.has(id)) this.arm(id, config);
  }

  private arm(ruleId: number, config: CtsWindowConfig): void {
    if (!this.unsubscribe) return;
    const end = nextWindowEnd(this.ctx.clock.now(), config.duration_s);
    const cancel = this.ctx.clock.at(end + SETTLE_MS, () => {
      this.timers.delete(ruleId);
      this.inflight.track(this.closeWindow(ruleId, end));
    });
    this.timers.set(ruleId, { end, key: JSON.stringify(config), cancel });
  }

  /** The rule is read again when its window closed: gone or disabled, it is not re-armed. */
  private async closeWindow(ruleId: number, end: number): Promise<void> {
    const rule = (await rulesWithTrigger(this.ctx, "cts_window")).find((r) => r.id === ruleId);
    if (!rule) return;
    const config = windowConfigOf(rule);
    // Armed again first: a slow read or run must not cost the next window.
    if (!this.timers.has(ruleId)) this.arm(ruleId, config);
    if (!this.ctx.settings.cts.enabled) return;
    const closed: Closed = { end, config, fired: false, chain: Promise.resolve() };
    this.closed.set(ruleId, closed);
    await this.evaluate(ruleId, closed);
  }

  /** Frames captured from `earliestMs` on were just stored: closed windows they fall in are read again. */
  private lateFrames(earliestMs: number): void {
    const now = this.ctx.clock.now();
    for (const [ruleId, closed] of this.closed) {
      if (now - closed.end > LATE_MS) {
        this.closed.delete(ruleId);
        continue;
      }
      if (closed.fired || earliestMs >= closed.end) continue; // frames of a later window wait for its close
      this.inflight.track(this.evaluate(ruleId, closed));
    }
  }

  private evaluate(ruleId: number, closed: Closed): Promise<void> {
    // A read that failed was logged (inflight); the next frames get a fresh try.
    closed.chain = closed.chain
      .catch(() => undefined)
      .then(async () => {
        if (closed.fired) return;
        const window = await this.read(ruleId, closed.end, closed.config);
        if (window.summary.detection_count < closed.config.min_detections || window.summary.distinct_identities < closed.config.min_identities) return;
        closed.fired = true;
        await fireLogged(this.ctx, this.firer, {
          rule_id: ruleId,
          trigger: triggerContext({ trigger_type: "cts_window", room_name: window.rooms.length === 1 ? window.rooms[0] : null, webhook_payload: window }),
        });
      });
    return closed.chain;
  }

  private async read(ruleId: number, end: number, config: CtsWindowConfig): Promise<WindowPayload> {
    const start = end - config.duration_s * 1000;
    const window = await trackingWindow(this.ctx.db, {
      since: new Date(start).toISOString(),
      // The end is exclusive: a frame on the boundary belongs to the next window.
      until: new Date(end - 1).toISOString(),
      sample_period_s: config.sample_period_s,
      cameras: config.cameras,
      rooms: config.rooms,
      max_frames: config.max_frames,
    });
    return windowPayload({ trigger_id: `cts-window-${ruleId}-${new Date(end).toISOString()}`, startMs: start, endMs: end }, window);
  }
}
