/**
 * When a cron expression next fires in a time zone, computed from the fields node-cron
 * parses (`validateDetailed`), with node-cron's field semantics (day-of-month AND
 * day-of-week; `L`, `LW`, `15W`, `L-2`, `5L`, `1#2`).
 *
 * Daylight-saving time:
 * - a wall time the spring-forward gap skips fires once, at the instant the gap ends
 *   (a 02:30 job runs at 03:00; several skipped times of one job collapse into that one run);
 * - in the repeated fall-back hour a wall time fires once, at its first occurrence, unless
 *   the job runs every hour (hour field `*`): such a job is an interval and keeps running
 *   through both passes, so an every-15-minutes check has no hour-long hole.
 */
import { validateDetailed } from "node-cron";
import { localParts, offsetAt, wallClockInstants, type WallTime } from "../../../platform/core/zoned-time";

export interface CronFields {
  second: number[];
  minute: number[];
  hour: number[];
  dayOfMonth: Array<number | string>;
  month: number[];
  dayOfWeek: Array<number | string>;
  /** The hour field covers all 24 hours: an interval job (see the DST note above). */
  everyHour: boolean;
}

/** The expression's fields, or null when node-cron does not accept it. */
export function parseCron(expression: string): CronFields | null {
  const result = validateDetailed(expression);
  if (!result.valid || !result.fields) return null;
  const f = result.fields;
  const asc = (xs: number[]) => [...new Set(xs)].sort((a, b) => a - b);
  const hour = asc(f.hour);
  return {
    second: asc(f.second),
    minute: asc(f.minute),
    hour,
    dayOfMonth: f.dayOfMonth,
    month: f.month,
    dayOfWeek: f.dayOfWeek.map((d) => (d === 7 ? 0 : d)),
    everyHour: hour.length === 24,
  };
}

const lastDayOfMonth = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
const weekdayOf = (y: number, m: number, d: number): number => new Date(Date.UTC(y, m - 1, d)).getUTCDay();

function nearestWeekday(y: number, m: number, target: number): number {
  const last = lastDayOfMonth(y, m);
  if (target < 1 || target > last) return -1;
  const wd = weekdayOf(y, m, target);
  if (wd === 6) return target === 1 ? 3 : target - 1;
  if (wd === 0) return target === last ? target - 2 : target + 1;
  return target;
}

function matchesDayOfMonth(field: Array<number | string>, y: number, m: number, d: number): boolean {
  const last = lastDayOfMonth(y, m);
  return field.some((v) => {
    if (v === d) return true;
    if (typeof v !== "string") return false;
    if (v === "L") return d === last;
    const w = /^(\d{1,2}|L)W$/.exec(v);
    if (w) return nearestWeekday(y, m, w[1] === "L" ? last : Number(w[1])) === d;
    const off = /^L-(\d{1,2})$/.exec(v);
    return off !== null && last - Number(off[1]) === d;
  });
}

function matchesDayOfWeek(field: Array<number | string>, y: number, m: number, d: number): boolean {
  const wd = weekdayOf(y, m, d);
  return field.some((v) => {
    if (v === wd) return true;
    if (typeof v !== "string") return false;
    const nth = /^([0-7])#([1-5])$/.exec(v);
    if (nth) return Number(nth[1]) % 7 === wd && Math.floor((d - 1) / 7) + 1 === Number(nth[2]);
    const lastOf = /^([0-7])L$/i.exec(v);
    return lastOf !== null && Number(lastOf[1]) % 7 === wd && d + 7 > lastDayOfMonth(y, m);
  });
}

export const dayMatches = (f: CronFields, y: number, m: number, d: number): boolean =>
  f.month.includes(m) && matchesDayOfMonth(f.dayOfMonth, y, m, d) && matchesDayOfWeek(f.dayOfWeek, y, m, d);

/** The instants a wall time of this job fires at, by the DST rules above. */
function firingInstants(f: CronFields, wall: WallTime, timeZone: string): number[] {
  const { instants, gapEnd } = wallClockInstants(wall, timeZone);
  if (!instants.length) return gapEnd === null ? [] : [gapEnd];
  return f.everyHour ? instants : instants.slice(0, 1);
}

const HOUR_MS = 3_600_000;
/** Zone offsets differ by less than this across any transition, so earlier wall times cannot be later instants. */
const SLACK_MS = 3 * HOUR_MS;
/** Long enough for Feb 29 on a given weekday (a 28-year cycle). */
const MAX_DAYS = 366 * 30;

/** The first instant after `afterMs` at which the job fires, or null if it never does. */
export function nextCronTime(f: CronFields, afterMs: number, timeZone: string): number | null {
  const floor = afterMs + offsetAt(afterMs, timeZone) - SLACK_MS; // naive wall ms below which nothing can be later than afterMs
  const start = localParts(afterMs, timeZone);
  const cursor = new Date(Date.UTC(start.year, start.month - 1, start.day));
  for (let i = 0; i < MAX_DAYS; i++, cursor.setUTCDate(cursor.getUTCDate() + 1)) {
    const year = cursor.getUTCFullYear();
    const month = cursor.getUTCMonth() + 1;
    const day = cursor.getUTCDate();
    if (!dayMatches(f, year, month, day)) continue;
    const found = firstOnDay(f, { year, month, day }, afterMs, floor, timeZone);
    if (found !== null) return found;
  }
  return null;
}

function firstOnDay(f: CronFields, date: { year: number; month: number; day: number }, afterMs: number, floor: number, timeZone: string): number | null {
  let best: number | null = null;
  for (const hour of f.hour) {
    if (Date.UTC(date.year, date.month - 1, date.day, hour, 59, 59) < floor) continue;
    for (const minute of f.minute) {
      if (Date.UTC(date.year, date.month - 1, date.day, hour, minute, 59) < floor) continue;
      for (const second of f.second) {
        const instants = firingInstants(f, { ...date, hour, minute, second }, timeZone);
        // A wall time's first instant never precedes an earlier wall time's, so once it passes the best, nothing later can beat it.
        if (best !== null && instants.length && instants[0] > best) return best;
        for (const t of instants) if (t > afterMs && (best === null || t < best)) best = t;
      }
    }
  }
  return best;
}
