/**
 * An alert level's channels and escalation: `notifications.levels.<level>` from settings
 * when the operator set it (the whole level: channels, escalation_minutes, repeat_count),
 * else the spec's table (`DEFAULT_LEVELS`).
 */
import { DEFAULT_LEVELS, type Settings } from "../../../../settings";

export type AlertLevel = keyof typeof DEFAULT_LEVELS;

export interface LevelPlan {
  channels: string[];
  /** Minutes between re-sends; null = this level does not escalate. */
  escalation_minutes: number | null;
  repeat_count: number;
}

export function levelPlan(settings: Settings, level: string): LevelPlan {
  const configured = settings.notifications.levels[level as AlertLevel];
  const fallback = DEFAULT_LEVELS[level as AlertLevel] ?? DEFAULT_LEVELS.info;
  const chosen = configured ?? fallback;
  return { channels: [...chosen.channels], escalation_minutes: chosen.escalation_minutes ?? null, repeat_count: chosen.repeat_count ?? 0 };
}

/** The re-send plan of a level, or null when it does not escalate. */
export function escalationPlan(plan: LevelPlan): { interval_minutes: number; repeat_count: number } | null {
  if (plan.escalation_minutes === null || plan.repeat_count <= 0) return null;
  return { interval_minutes: plan.escalation_minutes, repeat_count: plan.repeat_count };
}

/** Levels that raise an alert record (and so may escalate). */
export const RAISES_ALERT: ReadonlySet<string> = new Set(["warning", "emergency"]);
