/**
 * The enabled rules of one trigger type, kept between events. Reading them means the flows and
 * the rules' index (three queries and a walk of every flow node); read once per event, a
 * tracking service's 2,000 events a second kept the store's one SQLite connection reading
 * rules back to back, and tracking's commits queued behind them (issue 26).
 *
 * What is kept is dropped the moment a rule can have changed:
 * - a deploy ran (`rules.changed`: editor, REST, import, another instance's deploy);
 * - this process committed a rule write (rules-version.ts; also without Node-RED);
 * - and in any case after a second, for a write no notice reached (another instance while
 *   the cluster's broker is down).
 */
import type { CareContext } from "../../context";
import type { RuleView } from "../../rules/rule-model";
import { rulesVersion } from "../../rules/rules-version";
import { rulesWithTrigger } from "./trigger-kit";

const MAX_AGE_MS = 1000;

export class TriggerRules {
  private notices = 0;
  private kept: { key: string; at: number; rules: Promise<RuleView[]> } | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: CareContext,
    private readonly triggerType: string,
  ) {}

  start(): void {
    this.unsubscribe ??= this.ctx.bus.subscribe("rules.changed", () => {
      this.notices++;
      this.kept = null;
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.kept = null;
  }

  /** The rules; callers share the list and must not change it. */
  get(): Promise<RuleView[]> {
    // Taken before the read starts: a change during the read makes its answer stale at once.
    const key = `${this.notices}:${rulesVersion(this.ctx.db)}`;
    const now = this.ctx.clock.now();
    const kept = this.kept;
    if (kept && kept.key === key && now - kept.at < MAX_AGE_MS && now >= kept.at) return kept.rules;
    const rules = rulesWithTrigger(this.ctx, this.triggerType);
    const entry = { key, at: now, rules };
    this.kept = entry;
    rules.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
    return rules;
  }
}
