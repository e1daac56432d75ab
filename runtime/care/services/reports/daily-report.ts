/**
 * A member's report of one local day (`app.timezone`): activities, activity sessions, meals,
 * medication, sleep, sightings, time per room, and the household's alerts. Today's report
 * is built on each request and not stored (the day is not over); a past day's is built
 * once, stored (`daily_reports`) and read back unchanged, unless an identity revision rewrites
 * that day's history (revised-reports.ts builds it again). The midnight job
 * (midnight-job.ts) stores the day that just ended for every member.
 */
import type { CareContext } from "../../core/context";
import { isoAt } from "../../../platform/core/clock";
import { ValidationError } from "../../../platform/core/errors";
import { listActivitiesBetween } from "../../../household/activities/activities.store";
import { alertsRaisedBetween } from "../../../household/alerts/alerts.service";
import { getPerson, listPersons, type Person } from "../../../household/persons/persons.service";
import { listLocationChangesBetween } from "../../../household/tracking/location-history.store";
import { listSightingsBetween } from "../../../household/tracking/sightings.store";
import { readStoredReport, storedReportKeys, storeReport } from "./daily-reports.store";
import { addDays, compareDates, dateText, dayBounds, localDateOf, parseDate, type LocalDate } from "./local-day";
import {
  alertsSection,
  isMeal,
  isMedication,
  isSleep,
  locationsSection,
  occurrences,
  reportActivity,
  reportSession,
  sightingsSection,
  sleepSection,
  type AlertsSection,
  type LocationsSection,
  type ReportActivity,
  type ReportOccurrence,
  type ReportSession,
  type SightingsSection,
  type SleepSection,
} from "./report-sections";
import { OPEN_SESSION_LOOKBACK_HOURS, pairSessions } from "./sessions";

export type { AlertsSection, LocationsSection, ReportActivity, ReportOccurrence, ReportSession, SightingsSection, SleepSection };

/** How many past days a start (or a midnight) stores when their reports are missing. */
export const CATCH_UP_DAYS = 7;

export interface DailyReport {
  person_id: string;
  display_name: string;
  /** The local day, `YYYY-MM-DD`. */
  date: string;
  /** The zone the day was read in (`app.timezone` when the report was built). */
  timezone: string;
  /** The instants covered, `[from, to)`: local midnight to the next one, or to now for today. */
  window: { from: string; to: string };
  /** True once the day is over (every stored report). */
  complete: boolean;
  activities: { count: number; by_type: Record<string, number>; items: ReportActivity[] };
  /** Sessions (meal_start … meal_end, bathroom_enter … bathroom_exit) that started or ended this day. */
  sessions: ReportSession[];
  meals: { count: number; items: ReportOccurrence[] };
  medication: { count: number; times: string[]; items: ReportOccurrence[] };
  sleep: SleepSection;
  sightings: SightingsSection;
  locations: LocationsSection;
  alerts: AlertsSection;
  generated_at: string;
  /** True when this is the stored report of a day that is over; false for today's, built now. */
  stored: boolean;
}

/** The rooms where a person sleeps: the presence chain's bed room(s), else anything named like a bedroom. */
function bedroomNames(ctx: CareContext): string[] {
  const named = ctx.settings.presence.providers.flatMap((p) =>
    (p.name === "night_anchor" || p.name === "hub_bed_sensor") && "room_name" in p.options ? [String(p.options.room_name)] : [],
  );
  return [...new Set([...named, "bedroom"])];
}

/** Builds the report of `date` for `person`, covering `[day start, min(day end, now))`. */
export async function buildDailyReport(
  ctx: CareContext,
  person: Pick<Person, "person_id" | "display_name">,
  date: LocalDate,
): Promise<Omit<DailyReport, "stored">> {
  const timeZone = ctx.settings.app.timezone;
  const now = ctx.clock.now();
  const day = dayBounds(date, timeZone);
  const complete = now >= day.to;
  // The end is exclusive; today's includes the present instant.
  const end = complete ? day.to : now + 1;
  const [from, to] = [isoAt(day.from), isoAt(end)];
  // A day before too, for the sessions that began before midnight (last night's sleep).
  const [recent, sightings, changes, alerts] = await Promise.all([
    listActivitiesBetween(ctx.db, { since: isoAt(day.from - OPEN_SESSION_LOOKBACK_HOURS * 3_600_000), until: isoAt(end - 1), person_id: person.person_id }),
    listSightingsBetween(ctx.db, person.person_id, from, to),
    listLocationChangesBetween(ctx.db, person.person_id, from, to),
    alertsRaisedBetween(ctx, from, to),
  ]);
  const oldestFirst = [...recent].reverse();
  const activities = oldestFirst.filter((a) => a.timestamp >= from);
  const sessions = pairSessions(oldestFirst);
  const ofDay = sessions.filter((s) => s.started_at >= from || (s.ended_at !== null && s.ended_at >= from));
  const by_type: Record<string, number> = {};
  for (const a of activities) by_type[a.activity_type] = (by_type[a.activity_type] ?? 0) + 1;
  const medication = occurrences(activities, sessions, isMedication, timeZone);
  const meals = occurrences(activities, sessions, isMeal, timeZone);
  const sleepSessions = sessions.filter((s) => isSleep(s.activity_type) && (s.ended_at === null ? s.started_at >= from : s.ended_at >= from));
  return {
    person_id: person.person_id,
    display_name: person.display_name,
    date: dateText(date),
    timezone: timeZone,
    window: { from, to: complete ? to : isoAt(now) },
    complete,
    activities: { count: activities.length, by_type, items: activities.map((a) => reportActivity(a, timeZone)) },
    sessions: ofDay.map(reportSession),
    meals: { count: meals.length, items: meals },
    medication: { count: medication.length, times: medication.map((m) => m.local_time), items: medication },
    sleep: sleepSection(activities, sleepSessions, changes, bedroomNames(ctx), { from: day.from, to: end }),
    sightings: sightingsSection(sightings),
    locations: locationsSection(changes, day.from, end),
    alerts: alertsSection(alerts, to, timeZone),
    generated_at: isoAt(now),
  };
}

/** The stored report of a day that is over, building and storing it first when there is none. */
async function pastReport(ctx: CareContext, person: Pick<Person, "person_id" | "display_name">, date: LocalDate): Promise<DailyReport> {
  const stored = await readStoredReport<Omit<DailyReport, "stored">>(ctx.db, person.person_id, dateText(date));
  if (stored) return { ...stored, stored: true };
  const built = await buildDailyReport(ctx, person, date);
  await storeReport(ctx.db, { person_id: built.person_id, report_date: built.date, timezone: built.timezone, generated_at: built.generated_at, report: built });
  // Another builder may have stored first: its report is the one that stands.
  const kept = await readStoredReport<Omit<DailyReport, "stored">>(ctx.db, person.person_id, built.date);
  return { ...(kept ?? built), stored: true };
}

/**
 * The report of one member (404 for an unknown one) or of every member (by person_id) for
 * `report_date` (`YYYY-MM-DD` in `app.timezone`, today by default; a later day is 422).
 */
export async function dailyReport(ctx: CareContext, q: { person_id?: string; report_date?: string }): Promise<DailyReport | DailyReport[]> {
  const timeZone = ctx.settings.app.timezone;
  const today = localDateOf(ctx.clock.now(), timeZone);
  const date = q.report_date === undefined ? today : parseDate(q.report_date);
  if (compareDates(date, today) > 0) throw new ValidationError(`report_date ${dateText(date)} is after today (${dateText(today)} in ${timeZone})`);
  const one = (p: Pick<Person, "person_id" | "display_name">): Promise<DailyReport> =>
    compareDates(date, today) < 0 ? pastReport(ctx, p, date) : buildDailyReport(ctx, p, date).then((r) => ({ ...r, stored: false }));
  if (q.person_id !== undefined) return one(await getPerson(ctx, q.person_id));
  const reports: DailyReport[] = [];
  for (const p of await listPersons(ctx)) reports.push(await one(p));
  return reports;
}

/**
 * Stores every missing report of the last `CATCH_UP_DAYS` days before the day of `asOfMs`
 * (at least yesterday's), from the day each member was registered; returns how many it
 * stored. A report already stored is left as it is.
 */
export async function storeMissingReports(ctx: CareContext, asOfMs: number): Promise<number> {
  const timeZone = ctx.settings.app.timezone;
  const today = localDateOf(asOfMs, timeZone);
  const first = addDays(today, -CATCH_UP_DAYS);
  const have = await storedReportKeys(ctx.db, dateText(first));
  let count = 0;
  for (const person of await listPersons(ctx)) {
    const registered = localDateOf(Date.parse(person.created_at), timeZone);
    for (let d = compareDates(registered, first) > 0 ? registered : first; compareDates(d, today) < 0; d = addDays(d, 1)) {
      if (have.has(`${person.person_id}|${dateText(d)}`)) continue;
      const built = await buildDailyReport(ctx, person, d);
      if (
        await storeReport(ctx.db, {
          person_id: person.person_id,
          report_date: built.date,
          timezone: built.timezone,
          generated_at: built.generated_at,
          report: built,
        })
      )
        count += 1;
    }
  }
  return count;
}
