/**
 * Wall-clock time in a time zone, with `Intl` only (the zone rules Node's ICU carries): local
 * parts of an instant, the zone's offset, the instants a wall time maps to across DST, the
 * start of a local day. One implementation for the system object, cron, gates and tracking.
 */

/** A wall-clock time in some zone; month 1-12, weekday 0 = Sunday. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * An instant's wall time in a zone, with its weekday counted from Sunday (0), as JavaScript
 * and cron count. The day_of_week filter and node handlers count from Monday: their
 * `ZonedParts` (nodes/_kit/values.ts) come from household/tracking/local-time.
 */
export interface ZonedParts extends WallTime {
  weekday: number;
}

export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const SHORT_WEEKDAY_INDEX = new Map(WEEKDAYS.map((d, i) => [d.slice(0, 3), i]));

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      weekday: "short",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock reading of an instant in a zone (to the second). */
export function localParts(ms: number, timeZone: string): ZonedParts {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: SHORT_WEEKDAY_INDEX.get(parts.weekday) ?? 0,
  };
}

const naiveMs = (w: WallTime): number => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** The zone's offset from UTC at an instant, in ms (local minus UTC). */
export function offsetAt(ms: number, timeZone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return naiveMs(localParts(whole, timeZone)) - whole;
}

const DAY_MS = 86_400_000;

/**
 * The instants at which a zone's clocks read `wall`: one normally, two in a repeated
 * (fall-back) hour, none in a skipped (spring-forward) gap. For a gap, `gapEnd` is the
 * instant the gap ends, the first one after the missing wall time.
 */
export function wallClockInstants(wall: WallTime, timeZone: string): { instants: number[]; gapEnd: number | null } {
  const naive = naiveMs(wall);
  const offsets = [...new Set([offsetAt(naive - DAY_MS, timeZone), offsetAt(naive + DAY_MS, timeZone)])];
  const instants = offsets
    .map((o) => naive - o)
    .filter((t) => offsetAt(t, timeZone) === naive - t)
    .sort((a, b) => a - b);
  if (instants.length || offsets.length < 2) return { instants, gapEnd: null };
  // In the gap: the earlier offset puts the time after the change, the later one before it.
  let lo = Math.min(naive - offsets[0], naive - offsets[1]);
  let hi = Math.max(naive - offsets[0], naive - offsets[1]);
  const after = offsetAt(hi, timeZone);
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (offsetAt(mid, timeZone) === after) hi = mid;
    else lo = mid;
  }
  return { instants: [], gapEnd: hi };
}

/** The first instant at which the wall clock reads `wall` or, in a gap, the gap's end. */
export function firstInstantOf(wall: WallTime, timeZone: string): number {
  const { instants, gapEnd } = wallClockInstants(wall, timeZone);
  return instants[0] ?? (gapEnd as number);
}

/** The instant the local day holding `ms` began (local midnight, or the gap's end when midnight is skipped). */
export function startOfLocalDay(ms: number, timeZone: string): number {
  const p = localParts(ms, timeZone);
  return firstInstantOf({ year: p.year, month: p.month, day: p.day, hour: 0, minute: 0, second: 0 }, timeZone);
}
