/**
 * The editor's rehearsal windows, on the household's clock (not the browser's): the last
 * 24 hours, the last three nights (from 18:00 three evenings back, so three whole nights and
 * the evening of the first), the last 7 days (the longest window a rehearsal takes).
 */
import { addDays, localParts, localToEpoch } from "../../runtime/household/tracking/local-time";

export const WINDOWS = ["24h", "3n", "7d"] as const;
export type RehearsalWindow = (typeof WINDOWS)[number];

const HOUR = 3_600_000;
const EVENING = 18;

export function windowStart(window: RehearsalWindow, now: number, timeZone: string): number {
  if (window === "24h") return now - 24 * HOUR;
  if (window === "7d") return now - 7 * 24 * HOUR;
  // The last 18:00 at or before now, then two evenings further back.
  // By dates, not by 24 h steps: a day is not always 24 hours long.
  const today = localParts(now, timeZone);
  const at18 = (daysBack: number) => localToEpoch(addDays(today, -daysBack), { hour: EVENING, minute: 0, second: 0 }, timeZone);
  return at18(0) <= now ? at18(2) : at18(3);
}
