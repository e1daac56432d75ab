/**
 * Small pure helpers for what handlers read and write: instants as ISO text, "12 min ago",
 * blank config values, ranks on a severity scale, `HH:MM`. The runtime uses the same ones
 * (`runtime/tracking/match.ts` and `local-time.ts` re-export them), so a reason a filter
 * words and one the API words cannot drift.
 */

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

export interface LocalDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

export interface LocalTime {
  hour: number;
  minute: number;
  second: number;
}

export interface LocalParts extends LocalDate, LocalTime {
  /** 0 = Monday … 6 = Sunday, as the day_of_week filter counts. */
  weekday: number;
}

export const WEEKDAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

const pad = (n: number): string => String(n).padStart(2, "0");
export const hhmm = (t: Pick<LocalTime, "hour" | "minute">): string => `${pad(t.hour)}:${pad(t.minute)}`;

/** Minutes since local midnight of an `HH:MM` text. */
export function minutesOfDay(text: string): number {
  const [h, m] = text.split(":").map(Number);
  return h * 60 + m;
}
