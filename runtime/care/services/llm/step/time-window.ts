/**
 * The span `image_time_filter` allows. `since_minutes` counts back from now; `time_start` and
 * `time_end` are instants when they carry a date (read in `app.timezone` without an offset),
 * or times of today when they are only `HH:MM` (a pair whose end is before its start spans
 * midnight, as verification windows do). Every bound given narrows the span.
 */
import { anchorDailyWindow, timeOfDay } from "../../../../household/tracking/daily-window";
import { localParts, localToEpoch } from "../../../../household/tracking/local-time";

export interface ImageTimeFilter {
  since_minutes?: number;
  time_start?: string;
  time_end?: string;
}

export interface TimeSpan {
  from: number | null;
  to: number | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})[T ]/;
const OFFSET = /(Z|[+-]\d{2}:?\d{2})$/;

export function imageTimeSpan(filter: ImageTimeFilter | undefined, nowMs: number, timeZone: string): TimeSpan {
  if (!filter) return { from: null, to: null };
  const from: number[] = [];
  const to: number[] = [];
  if (filter.since_minutes !== undefined) from.push(nowMs - filter.since_minutes * 60_000);
  const start = filter.time_start?.trim();
  const end = filter.time_end?.trim();
  if (start && end && !DATE.test(start) && !DATE.test(end)) {
    const daily = anchorDailyWindow(timeOfDay(start)!, timeOfDay(end)!, nowMs, timeZone);
    from.push(daily.from);
    to.push(daily.to);
  } else {
    if (start) from.push(instant(start, nowMs, timeZone));
    if (end) to.push(instant(end, nowMs, timeZone));
  }
  return { from: from.length ? Math.max(...from) : null, to: to.length ? Math.min(...to) : null };
}

function instant(text: string, nowMs: number, timeZone: string): number {
  const time = timeOfDay(text)!;
  const date = DATE.exec(text);
  if (!date) return localToEpoch(localParts(nowMs, timeZone), time, timeZone);
  if (OFFSET.test(text)) return Date.parse(text);
  return localToEpoch({ year: Number(date[1]), month: Number(date[2]), day: Number(date[3]) }, time, timeZone);
}
