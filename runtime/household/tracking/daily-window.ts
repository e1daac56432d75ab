/**
 * A daily window such as 08:00-10:00, placed on the household's calendar. Verification
 * conditions store their window edges as ISO-8601 date-times or `HH:MM`; only the time of day
 * counts (as written, ignoring any date or offset): the window is re-anchored to today in
 * `app.timezone`, so a rule saved in March still checks today's morning in November.
 */
import { addDays, localParts, localToEpoch, type LocalTime } from "./local-time";

const TIME_OF_DAY = /(?:^|[T ])(\d{2}):(\d{2})(?::(\d{2}))?/;

/** The wall-clock time in an ISO-8601 date-time or `HH:MM[:SS]`; null when there is none. */
export function timeOfDay(text: string): LocalTime | null {
  const m = TIME_OF_DAY.exec(text.trim());
  return m ? { hour: Number(m[1]), minute: Number(m[2]), second: m[3] ? Number(m[3]) : 0 } : null;
}

const seconds = (t: LocalTime): number => t.hour * 3600 + t.minute * 60 + t.second;

/**
 * Epoch-ms bounds of the window on today's date. A window whose end is before its start
 * spans midnight; it is the night that started most recently: from yesterday evening until
 * this morning before the start time, from this evening until tomorrow morning after it.
 */
export function anchorDailyWindow(start: LocalTime, end: LocalTime, nowMs: number, timeZone: string): { from: number; to: number } {
  const today = localParts(nowMs, timeZone);
  if (seconds(end) >= seconds(start)) {
    return { from: localToEpoch(today, start, timeZone), to: localToEpoch(today, end, timeZone) };
  }
  const startDay = seconds(today) >= seconds(start) ? today : addDays(today, -1);
  return { from: localToEpoch(startDay, start, timeZone), to: localToEpoch(addDays(startDay, 1), end, timeZone) };
}
