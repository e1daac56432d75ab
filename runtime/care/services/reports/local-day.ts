/** Local calendar days of the household (`app.timezone`): their text, their bounds, today. */
import { ValidationError } from "../../../platform/core/errors";
import { firstInstantOf } from "../../../platform/core/zoned-time";
import { addDays, localParts, type LocalDate } from "../../../household/tracking/local-time";

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** `2026-05-04`. */
export const dateText = (d: LocalDate): string => `${pad(d.year, 4)}-${pad(d.month)}-${pad(d.day)}`;

/** The local date of an instant. */
export function localDateOf(ms: number, timeZone: string): LocalDate {
  const p = localParts(ms, timeZone);
  return { year: p.year, month: p.month, day: p.day };
}

/** A `YYYY-MM-DD` that names a real day; 422 otherwise. */
export function parseDate(text: string, field = "report_date"): LocalDate {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  const d = m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : null;
  if (!d || dateText(addDays(d, 0)) !== dateText(d)) throw new ValidationError(`${field} must be a date as YYYY-MM-DD, got '${text}'`);
  return d;
}

/** The instant a local day begins: its midnight, or the end of the gap when the zone skips midnight. */
export const startOfDay = (d: LocalDate, timeZone: string): number => firstInstantOf({ ...d, hour: 0, minute: 0, second: 0 }, timeZone);

/** The local day's bounds `[from, to)` in epoch ms (23 or 25 hours on a day the clocks change). */
export function dayBounds(d: LocalDate, timeZone: string): { from: number; to: number } {
  return { from: startOfDay(d, timeZone), to: startOfDay(addDays(d, 1), timeZone) };
}

/** The next local midnight after `ms`. */
export const nextMidnight = (ms: number, timeZone: string): number => startOfDay(addDays(localDateOf(ms, timeZone), 1), timeZone);

export const compareDates = (a: LocalDate, b: LocalDate): number => dateText(a).localeCompare(dateText(b));

export { addDays, type LocalDate };
