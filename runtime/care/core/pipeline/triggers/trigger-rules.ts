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
import { KeptRead } from "../../rules/kept-read";
import { rulesWithTrigger } from "./trigger-kit";

const MAX_AGE_MS = 1000;

export class TriggerRules {
  private notices = 0;
  private readonly kept: KeptRead<RuleView[]>;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: CareContext,
    private readonly triggerType: string,
  ) {
    this.kept = new KeptRead(MAX_AGE_MS, () => ctx.clock.now());
  }

  start(): void {
    this.unsubscribe ??= this.ctx.bus.subscribe("rules.changed", () => {
      this.notices++;
      this.kept.forget();
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.kept.forget();
  }

  /** The rules; callers share the list and must not change it. */
  get(): Promise<RuleView[]> {
    return this.kept.get(`${this.notices}:${rulesVersion(this.ctx.db)}`, () => rulesWithTrigger(this.ctx, this.triggerType));
  }
}
