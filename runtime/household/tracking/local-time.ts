/**
 * The household's wall clock (`app.timezone`) from an instant, and back. Filters and
 * verification windows speak local time; the store speaks UTC. Intl carries the zone rules,
 * so daylight-saving changes need no table of our own.
 */
import type { LocalDate, LocalParts, LocalTime } from "../../../nodes/_kit/values";
import { localParts as zoneParts, offsetAt, startOfLocalDay as zoneStartOfDay } from "../../platform/core/zoned-time";

export type { LocalDate, LocalParts, LocalTime };
export { hhmm, minutesOfDay, WEEKDAY_NAMES } from "../../../nodes/_kit/values";

const DAY_MS = 86_400_000;

/** The wall clock of an instant in a zone, weekdays counted from Monday as day_of_week does. */
export function localParts(epochMs: number, timeZone: string): LocalParts {
  const p = zoneParts(epochMs, timeZone);
  return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second, weekday: (p.weekday + 6) % 7 };
}

/**
 * The instant at which the household's clock shows `date` `time`. A time repeated by an
 * autumn change takes its first occurrence; a time skipped by a spring change is read with
 * the offset before the gap, so 02:30 on that day lands at 03:30.
 */
export function localToEpoch(date: LocalDate, time: LocalTime, timeZone: string): number {
  const wall = Date.UTC(date.year, date.month - 1, date.day, time.hour, time.minute, time.second);
  // A zone changes its offset at most once within a day, so the offsets a day either side
  // are the only two candidates.
  const before = wall - offsetAt(wall - DAY_MS, timeZone);
  const after = wall - offsetAt(wall + DAY_MS, timeZone);
  const valid = [before, after].filter((t) => localMatches(t, date, time, timeZone));
  return valid.length > 0 ? Math.min(...valid) : before;
}

function localMatches(epochMs: number, date: LocalDate, time: LocalTime, timeZone: string): boolean {
  const p = localParts(epochMs, timeZone);
  return p.year === date.year && p.month === date.month && p.day === date.day && p.hour === time.hour && p.minute === time.minute;
}

/** The calendar day `days` after `date` (negative for before). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The instant the household's current day began (local midnight). */
export const startOfLocalDay = zoneStartOfDay;
