/**
 * The sections of a daily report, each computed from the records of the day (pure: the
 * service reads the records through their owners). Activity kinds are matched by the name
 * key of the activity's type, or of its session's type for a session's start
 * (`meal_start` is a meal, `bathroom_enter` a bathroom visit).
 */
import { nameKey, sameName } from "../../../platform/core/name-key";
import { hhmm, localParts } from "../../../household/tracking/local-time";
import type { Activity } from "../../../household/activities/activities.store";
import type { Alert } from "../../../household/alerts/alerts.service";
import type { LocationChange } from "../../../household/tracking/location-history.store";
import type { Sighting } from "../../../household/tracking/sightings.store";
import { sessionEdge, type PairedSession } from "./sessions";

export const MEAL_TYPES: readonly string[] = ["eating", "meal", "breakfast", "lunch", "dinner", "supper", "brunch", "snack"];
export const MEDICATION_TYPES: readonly string[] = ["medication", "medicine", "meds", "pills", "medication_taken"];
export const SLEEP_TYPES: readonly string[] = ["sleeping", "sleep", "asleep", "nap", "napping"];

const isOne = (types: readonly string[], prefix: string) => {
  const keys = new Set(types.map(nameKey));
  return (type: string): boolean => keys.has(nameKey(type)) || nameKey(type).startsWith(prefix);
};
export const isMeal = isOne(MEAL_TYPES, "meal_");
export const isMedication = isOne(MEDICATION_TYPES, "medication_");
export const isSleep = isOne(SLEEP_TYPES, "sleep_");

const minutesBetween = (from: string, to: string): number => Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 6_000) / 10);

export interface ReportActivity {
  activity_id: number;
  timestamp: string;
  /** Wall-clock time in the report's timezone, `HH:MM`. */
  local_time: string;
  activity_type: string;
  room_name: string | null;
  confidence: number;
  metadata: Record<string, unknown>;
}

export interface ReportSession {
  activity_type: string;
  started_at: string;
  /** Null while open at the end of the report's window. */
  ended_at: string | null;
  minutes: number | null;
  room_name: string | null;
  start_activity_id: number;
  end_activity_id: number | null;
}

/** A meal or a dose: a moment, or a session's start (then `ended_at` when it ended). */
export interface ReportOccurrence extends ReportActivity {
  ended_at: string | null;
}

export interface SleepSection {
  /** Every source that had something to say, in the order they are trusted. */
  based_on: Array<"sleep_sessions" | "sleeping_activities" | "bedroom_presence">;
  /** Minutes asleep: the sleep sessions' total, else the time in the bedroom, else null (nothing known). */
  minutes: number | null;
  minutes_based_on: "sleep_sessions" | "bedroom_presence" | null;
  /** Sleep sessions that ended this day (a night belongs to the morning it ends), or still open at its end. */
  sessions: ReportSession[];
  /** `sleeping` (and the like) recorded as moments. */
  sleeping_activities: { count: number; first_at: string | null; last_at: string | null };
  /** The bedroom as the presence history places the person (`presence` settings' bed room, or a room named like a bedroom). */
  bedroom: { rooms: string[]; minutes: number; entered: number } | null;
  /** The same in words. */
  summary: string;
}

export interface SightingsSection {
  count: number;
  rooms: Array<{ room_name: string | null; count: number; first_seen: string; last_seen: string }>;
}

export interface LocationsSection {
  /** Moves to another room during the day. */
  changes: number;
  /** Time per room from the location history: a stay lasts until the next change (or the end of the window). */
  minutes_by_room: Array<{ room_name: string; minutes: number }>;
}

export interface ReportAlert {
  id: number;
  timestamp: string;
  local_time: string;
  alert_type: string;
  level: string;
  description: string;
  room_name: string | null;
  /** As at the end of the report's window. */
  resolved: boolean;
  resolved_at: string | null;
  resolved_by: string | null;
  assistance_needed: boolean;
  actions: Array<{ action: string; actor: string; at: string; note: string | null }>;
}

export interface AlertsSection {
  /** Alerts do not name a person: each member's report lists the household's alerts of the day. */
  scope: "household";
  count: number;
  by_level: Record<string, number>;
  open: number;
  resolved: number;
  items: ReportAlert[];
}

export function reportActivity(a: Activity, timeZone: string): ReportActivity {
  return {
    activity_id: a.id,
    timestamp: a.timestamp,
    local_time: hhmm(localParts(Date.parse(a.timestamp), timeZone)),
    activity_type: a.activity_type,
    room_name: a.room_name,
    confidence: a.confidence,
    metadata: a.metadata_json,
  };
}

export const reportSession = (s: PairedSession): ReportSession => ({
  activity_type: s.activity_type,
  started_at: s.started_at,
  ended_at: s.ended_at,
  minutes: s.ended_at === null ? null : minutesBetween(s.started_at, s.ended_at),
  room_name: s.room_name,
  start_activity_id: s.start_activity_id,
  end_activity_id: s.end_activity_id,
});

/** The day's meals or doses: moments of the kind and starts of sessions of the kind (never their ends). */
export function occurrences(
  dayActivities: readonly Activity[],
  sessions: readonly PairedSession[],
  isKind: (t: string) => boolean,
  timeZone: string,
): ReportOccurrence[] {
  const ends = new Map(sessions.map((s) => [s.start_activity_id, s.ended_at]));
  return dayActivities
    .filter((a) => {
      const { edge, session_type } = sessionEdge(a);
      return edge !== "end" && isKind(session_type);
    })
    .map((a) => ({ ...reportActivity(a, timeZone), ended_at: ends.get(a.id) ?? null }));
}

/** Stays from location changes (the first may have begun before the window), clipped to `[from, to)`. */
export function stays(changes: readonly LocationChange[], from: number, to: number): Array<{ room_name: string | null; start: number; end: number }> {
  return changes
    .map((c, i) => ({
      room_name: c.room_name,
      start: Math.max(from, Date.parse(c.timestamp)),
      end: Math.min(to, i + 1 < changes.length ? Date.parse(changes[i + 1].timestamp) : to),
    }))
    .filter((s) => s.end > s.start);
}

export function locationsSection(changes: readonly LocationChange[], from: number, to: number): LocationsSection {
  const minutes = new Map<string, { room_name: string; ms: number }>();
  for (const s of stays(changes, from, to)) {
    if (!s.room_name) continue;
    const key = nameKey(s.room_name);
    const m = minutes.get(key) ?? { room_name: s.room_name, ms: 0 };
    m.ms += s.end - s.start;
    minutes.set(key, m);
  }
  return {
    // A stale location placed again in the same room is a history entry, not a move.
    changes: changes.filter((c, i) => Date.parse(c.timestamp) >= from && (i === 0 || !sameName(changes[i - 1].room_name, c.room_name))).length,
    minutes_by_room: [...minutes.values()]
      .map((m) => ({ room_name: m.room_name, minutes: Math.round(m.ms / 6_000) / 10 }))
      .sort((a, b) => b.minutes - a.minutes),
  };
}

export function sleepSection(
  dayActivities: readonly Activity[],
  sleepSessions: readonly PairedSession[],
  changes: readonly LocationChange[],
  bedrooms: readonly string[],
  window: { from: number; to: number },
): SleepSection {
  const sessions = sleepSessions.map(reportSession);
  const moments = dayActivities.filter((a) => sessionEdge(a).edge === null && isSleep(a.activity_type));
  const inBed = stays(changes, window.from, window.to).filter((s) => bedrooms.some((b) => sameName(b, s.room_name)));
  const bedroom = inBed.length
    ? {
        rooms: [...new Set(inBed.map((s) => s.room_name as string))],
        minutes: Math.round(inBed.reduce((n, s) => n + s.end - s.start, 0) / 6_000) / 10,
        entered: inBed.length,
      }
    : null;
  const closed = sessions.filter((s) => s.minutes !== null);
  const based_on: SleepSection["based_on"] = [];
  if (sessions.length) based_on.push("sleep_sessions");
  if (moments.length) based_on.push("sleeping_activities");
  if (bedroom) based_on.push("bedroom_presence");
  const fromSessions = closed.length ? Math.round(closed.reduce((n, s) => n + (s.minutes ?? 0), 0) * 10) / 10 : null;
  const minutes = fromSessions ?? bedroom?.minutes ?? null;
  const minutes_based_on = fromSessions !== null ? "sleep_sessions" : bedroom ? "bedroom_presence" : null;
  const parts: string[] = [];
  if (fromSessions !== null) parts.push(`${fromSessions} min asleep in ${closed.length} recorded sleep session(s) that ended this day`);
  if (sessions.length > closed.length) parts.push("a sleep session still open at the end of the window");
  if (moments.length) parts.push(`${moments.length} 'sleeping' activit${moments.length === 1 ? "y" : "ies"} recorded`);
  if (bedroom)
    parts.push(`${bedroom.minutes} min in the bedroom by the location history${fromSessions === null ? " (time in the bedroom, not sleep measured)" : ""}`);
  return {
    based_on,
    minutes,
    minutes_based_on,
    sessions,
    sleeping_activities: { count: moments.length, first_at: moments[0]?.timestamp ?? null, last_at: moments.at(-1)?.timestamp ?? null },
    bedroom,
    summary: parts.length
      ? `${parts.join("; ")}.`
      : "Nothing recorded about sleep: no sleep sessions, no 'sleeping' activities, no bedroom stays in the location history.",
  };
}

export function sightingsSection(sightings: readonly Sighting[]): SightingsSection {
  const rooms = new Map<string, SightingsSection["rooms"][number]>();
  for (const s of sightings) {
    const key = s.room_name === null ? "" : `=${nameKey(s.room_name)}`;
    const r = rooms.get(key);
    if (r) {
      r.count += 1;
      r.last_seen = s.timestamp;
    } else rooms.set(key, { room_name: s.room_name, count: 1, first_seen: s.timestamp, last_seen: s.timestamp });
  }
  return { count: sightings.length, rooms: [...rooms.values()] };
}

/** The day's alerts as they stood at `endIso` (actions taken later are not part of this day). */
export function alertsSection(alerts: readonly Alert[], endIso: string, timeZone: string): AlertsSection {
  const items = alerts.map((a): ReportAlert => {
    const resolved = a.resolved && a.resolved_at !== null && a.resolved_at < endIso;
    return {
      id: a.id,
      timestamp: a.timestamp,
      local_time: hhmm(localParts(Date.parse(a.timestamp), timeZone)),
      alert_type: a.alert_type,
      level: a.level,
      description: a.description,
      room_name: a.room_name,
      resolved,
      resolved_at: resolved ? a.resolved_at : null,
      resolved_by: resolved ? a.resolved_by : null,
      assistance_needed: a.assistance_needed && a.assisted_at !== null && a.assisted_at < endIso,
      actions: a.actions.filter((x) => x.created_at < endIso).map((x) => ({ action: x.action, actor: x.actor, at: x.created_at, note: x.note })),
    };
  });
  const by_level: Record<string, number> = {};
  for (const a of items) by_level[a.level] = (by_level[a.level] ?? 0) + 1;
  const resolved = items.filter((a) => a.resolved).length;
  return { scope: "household", count: items.length, by_level, open: items.length - resolved, resolved, items };
}
