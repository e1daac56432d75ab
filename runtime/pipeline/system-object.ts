/**
 * Local time in the household's zone: the `system` object every run starts with, and the
 * wall-clock conversions the cron trigger and the daily-limit gate share. Only `Intl`:
 * the zone rules are the ones Node's ICU carries.
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

export interface LocalParts extends WallTime {
  weekday: number;
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
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
export function localParts(ms: number, timeZone: string): LocalParts {
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

export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** The spec's `system` object; key names are those of `data-keys.ts`. */
export interface SystemObject {
  local_time: string;
  local_time_24h: string;
  local_hour_12h: string;
  local_hour_24h: string;
  local_minute: string;
  local_ampm: string;
  local_date: string;
  local_day_of_week: string;
  local_day_of_week_short: string;
  local_day_of_month: number;
  local_day_ordinal: string;
  local_month_name: string;
  local_month_name_short: string;
  local_month_number: number;
  local_year: number;
  local_date_long: string;
  local_date_friendly: string;
  timezone: string;
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * The run's `system` object: "7:05 PM", "19:05", "2026-09-21", "Monday, 21 September 2026",
 * "Monday the 21st of September", ... in English, for `timezone` at `nowMs`.
 */
export function buildSystemObject(nowMs: number, timezone: string): Readonly<SystemObject> {
  // Every field reads to the minute, and zones change offset on whole minutes: one reading
  // per zone and minute serves every run that starts in it. It is frozen, since runs share it
  // (a step replaces pipeline_data keys, it never edits inside them).
  const minute = Math.floor(nowMs / 60_000);
  const hit = lastReading.get(timezone);
  if (hit && hit.minute === minute) return hit.system;
  const system = Object.freeze(readSystemObject(minute * 60_000, timezone));
  lastReading.set(timezone, { minute, system });
  return system;
}

const lastReading = new Map<string, { minute: number; system: Readonly<SystemObject> }>();

function readSystemObject(nowMs: number, timezone: string): SystemObject {
  const p = localParts(nowMs, timezone);
  const hour12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
  const ampm = p.hour < 12 ? "AM" : "PM";
  const weekday = WEEKDAYS[p.weekday];
  const month = MONTHS[p.month - 1];
  return {
    local_time: `${hour12}:${pad2(p.minute)} ${ampm}`,
    local_time_24h: `${pad2(p.hour)}:${pad2(p.minute)}`,
    local_hour_12h: String(hour12),
    local_hour_24h: pad2(p.hour),
    local_minute: pad2(p.minute),
    local_ampm: ampm,
    local_date: `${String(p.year).padStart(4, "0")}-${pad2(p.month)}-${pad2(p.day)}`,
    local_day_of_week: weekday,
    local_day_of_week_short: weekday.slice(0, 3),
    local_day_of_month: p.day,
    local_day_ordinal: ordinal(p.day),
    local_month_name: month,
    local_month_name_short: month.slice(0, 3),
    local_month_number: p.month,
    local_year: p.year,
    local_date_long: `${weekday}, ${p.day} ${month} ${p.year}`,
    local_date_friendly: `${weekday} the ${ordinal(p.day)} of ${month}`,
    timezone,
  };
}
