/**
 * The `system` object every run starts with: the household's local time, built on the
 * wall-clock conversions of platform/core/zoned-time.
 */
import { WEEKDAYS, localParts } from "../../../platform/core/zoned-time";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th");
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
