/**
 * What the daily reports still need (docs/retention.md): the midnight job may yet store the
 * report of any of the last `CATCH_UP_DAYS` days (a service down at midnight catches up at
 * start), and each report reads a day before its own for the sessions that began before
 * midnight. Retention never prunes the activities, locations, sightings or alerts from this
 * instant on, whatever its settings say; a stored report no longer needs them.
 */
import { isoAt } from "../../../platform/core/clock";
import { CATCH_UP_DAYS } from "./daily-report";
import { addDays, dayBounds, localDateOf } from "./local-day";
import { OPEN_SESSION_LOOKBACK_HOURS } from "./sessions";

/** The earliest instant a report not yet stored may read, as at `nowMs` (ISO-8601 UTC). */
export function reportInputsNeededFrom(nowMs: number, timeZone: string): string {
  const oldestDay = addDays(localDateOf(nowMs, timeZone), -CATCH_UP_DAYS);
  return isoAt(dayBounds(oldestDay, timeZone).from - OPEN_SESSION_LOOKBACK_HOURS * 3_600_000);
}
