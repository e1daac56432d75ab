/**
 * What the gates need to know about a rule. `RuleDetail` (from `getRuleDetail`) has all of
 * it, so the engine passes the rule it already read.
 */
import type { ContextView, DependencyView } from "../../rules/rule-model";

export interface GateRule {
  id: number;
  cool_off_minutes: number;
  max_daily_triggers: number | null;
  contexts: readonly ContextView[];
  dependencies: readonly DependencyView[];
}

/** Timestamps are fixed-width ISO-8601 UTC text, so they compare as strings on both dialects. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();

export const MINUTE_MS = 60_000;
