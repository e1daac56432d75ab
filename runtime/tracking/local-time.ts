/**
 * The household's wall clock (`app.timezone`) from an instant, and back. Filters and
 * verification windows speak local time; the store speaks UTC. Intl carries the zone rules,
 * so daylight-saving changes need no table of our own.
 */

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
const SHORT_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    // h23, not hour12:false: some ICU versions print midnight as "24" with the latter.
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function localParts(epochMs: number, timeZone: string): LocalParts {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(epochMs))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: SHORT_WEEKDAYS.indexOf(parts.weekday),
  };
}

/** How far the zone's wall clock is ahead of UTC at that instant, in ms. */
function offsetAt(epochMs: number, timeZone: string): number {
  const p = localParts(epochMs, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - Math.floor(epochMs / 1000) * 1000;
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
export function startOfLocalDay(epochMs: number, timeZone: string): number {
  return localToEpoch(localParts(epochMs, timeZone), { hour: 0, minute: 0, second: 0 }, timeZone);
}

const pad = (n: number): string => String(n).padStart(2, "0");
export const hhmm = (t: Pick<LocalTime, "hour" | "minute">): string => `${pad(t.hour)}:${pad(t.minute)}`;

/** Minutes since local midnight of an `HH:MM` text. */
export function minutesOfDay(text: string): number {
  const [h, m] = text.split(":").map(Number);
  return h * 60 + m;
}
