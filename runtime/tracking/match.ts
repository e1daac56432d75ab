/**
 * How tracking data is compared with what a caregiver typed. Names (rooms, activity types)
 * are compared by their key (`core/name-key.ts`), in JavaScript, never with SQL `lower()`.
 */
import { sameName } from "../core/name-key";

/** Equality of two names in any case or Unicode spelling, ignoring surrounding blanks. */
export const sameText = sameName;

/** Is `value` at or above `min` on a scale listed lowest first? Unknown values are below everything. */
export function atLeast<T extends string>(scale: readonly T[], value: string, min: T): boolean {
  const rank = scale.indexOf(value as T);
  return rank >= 0 && rank >= scale.indexOf(min);
}

/** A blank template or config value means "any". */
export const blankToNull = (v: string | null | undefined): string | null => (v === null || v === undefined || v.trim() === "" ? null : v.trim());

export const minutesAgo = (nowMs: number, iso: string): number => (nowMs - Date.parse(iso)) / 60_000;

/** "12 min ago" for reasons a caregiver reads. */
export const agoText = (nowMs: number, iso: string): string => `${Math.max(0, Math.round(minutesAgo(nowMs, iso)))} min ago`;

export const isoAt = (epochMs: number): string => new Date(epochMs).toISOString();
