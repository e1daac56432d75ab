/**
 * How tracking data is compared with what a caregiver typed. Names are compared here, in
 * JavaScript, rather than with SQL `lower()`: SQLite folds only ASCII and PostgreSQL follows
 * its locale, so "KÜCHE" would match "küche" on one store and not on the other.
 */

/** Case-insensitive equality of two names, ignoring surrounding blanks. */
export const sameText = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a !== null && a !== undefined && b !== null && b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();

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
