/**
 * Activity sessions: an activity that lasts (a meal, a bathroom visit, a night's sleep) is
 * recorded as two activities, one when it starts and one when it ends. The pairing rule
 * (docs/decisions.md, "Daily reports, timeline, open sessions"):
 *
 * - an activity whose `metadata_json.session` is `"start"` or `"end"` starts or ends a
 *   session of its type (`activity_type: "meal"`, `metadata_json: {"session": "start"}`);
 * - otherwise the type's suffix says it: `_start`, `_begin`, `_enter` start a session of the
 *   type without the suffix, `_end`, `_stop`, `_finish`, `_exit` end one (`meal_start` …
 *   `meal_end` is a `meal`, `bathroom_enter` … `bathroom_exit` a `bathroom`);
 * - types are compared by their name key (any case or Unicode spelling), per person (an
 *   unknown person, `person_id` null, is one person of its own);
 * - a start while the same session is open keeps the first start (starting again is not a
 *   new session, as the original project's idempotent open); an end closes the open
 *   session; an end with none open is ignored;
 * - a session is open while no end has followed its start; a start older than
 *   `OPEN_SESSION_LOOKBACK_HOURS` with no end is abandoned (the end was never recorded).
 *
 * Every other activity is a moment, not a session.
 */
import type { CareContext } from "../../core/context";
import { ValidationError } from "../../../platform/core/errors";
import { isoAt } from "../../../platform/core/clock";
import { nameKey } from "../../../platform/core/name-key";
import { listActivitiesBetween, type Activity } from "../../../household/activities/activities.store";
import { getPerson, listPersons } from "../../../household/persons/persons.service";

/** How far back an open session's start is looked for. */
export const OPEN_SESSION_LOOKBACK_HOURS = 24;

const START_SUFFIXES = ["_start", "_begin", "_enter"] as const;
const END_SUFFIXES = ["_end", "_stop", "_finish", "_exit"] as const;

/** What an activity is to a session: its start, its end, or a moment (no session). */
export interface SessionEdge {
  edge: "start" | "end" | null;
  /** The session's type (the activity's type without the suffix); the activity's own type for a moment. */
  session_type: string;
}

/** The type without one of these (ASCII) suffixes, in any case; null when it has none. */
function stripSuffix(type: string, suffixes: readonly string[]): string | null {
  const suffix = suffixes.find((s) => type.length > s.length && type.slice(-s.length).toLowerCase() === s);
  return suffix ? type.slice(0, -suffix.length) : null;
}

export function sessionEdge(a: Pick<Activity, "activity_type" | "metadata_json">): SessionEdge {
  const type = a.activity_type.trim();
  const marked = a.metadata_json?.session;
  if (marked === "start" || marked === "end") {
    const base = stripSuffix(type, marked === "start" ? START_SUFFIXES : END_SUFFIXES) ?? type;
    return { edge: marked, session_type: base };
  }
  const started = stripSuffix(type, START_SUFFIXES);
  if (started !== null) return { edge: "start", session_type: started };
  const ended = stripSuffix(type, END_SUFFIXES);
  if (ended !== null) return { edge: "end", session_type: ended };
  return { edge: null, session_type: type };
}

/** A session as paired from its activities; `ended_at` null while it is open. */
export interface PairedSession {
  person_id: string | null;
  /** The session's type as its start spelled it (`meal` for `meal_start`). */
  activity_type: string;
  started_at: string;
  ended_at: string | null;
  room_name: string | null;
  start_activity_id: number;
  start_activity_type: string;
  end_activity_id: number | null;
}

const byTime = (a: Activity, b: Activity): number => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.id - b.id);

/** Pairs the starts and ends among these activities (any order), by the rule above; sessions in start order. */
export function pairSessions(activities: readonly Activity[]): PairedSession[] {
  const open = new Map<string, PairedSession>();
  const all: PairedSession[] = [];
  for (const a of [...activities].sort(byTime)) {
    const { edge, session_type } = sessionEdge(a);
    if (edge === null) continue;
    const key = `${a.person_id ?? ""}\u0000${nameKey(session_type)}`;
    const current = open.get(key);
    if (edge === "start") {
      if (current) continue;
      const s: PairedSession = {
        person_id: a.person_id,
        activity_type: session_type,
        started_at: a.timestamp,
        ended_at: null,
        room_name: a.room_name,
        start_activity_id: a.id,
        start_activity_type: a.activity_type,
        end_activity_id: null,
      };
      open.set(key, s);
      all.push(s);
    } else if (current) {
      current.ended_at = a.timestamp;
      current.end_activity_id = a.id;
      open.delete(key);
    }
  }
  return all;
}

/** An activity session that has started and not ended. */
export interface ActivitySession {
  person_id: string | null;
  /** The member's display name; null for an unknown person or one no longer a member. */
  display_name: string | null;
  /** The session's type: `meal` for `meal_start`, `bathroom` for `bathroom_enter`. */
  activity_type: string;
  started_at: string;
  /** Minutes since it started, to one decimal. */
  open_minutes: number;
  room_name: string | null;
  start_activity_id: number;
  /** The start activity's own type (`meal_start`). */
  start_activity_type: string;
}

/**
 * Open sessions, longest open first: of one member (404 for an unknown one) or of everyone
 * (unknown persons' too); of one type when `activity_type` is given (the session's type or
 * its start's, any case: `bathroom` or `bathroom_enter`).
 */
export async function openSessions(ctx: CareContext, q: { person_id?: string; activity_type?: string }): Promise<ActivitySession[]> {
  if (q.person_id !== undefined) await getPerson(ctx, q.person_id);
  if (q.activity_type !== undefined && q.activity_type.trim() === "") throw new ValidationError("activity_type must not be empty");
  const now = ctx.clock.now();
  const activities = await listActivitiesBetween(ctx.db, {
    since: isoAt(now - OPEN_SESSION_LOOKBACK_HOURS * 3_600_000),
    until: isoAt(now),
    person_id: q.person_id,
  });
  const wanted = q.activity_type === undefined ? null : nameKey(sessionEdge({ activity_type: q.activity_type, metadata_json: {} }).session_type);
  const names = new Map((await listPersons(ctx)).map((p) => [p.person_id, p.display_name]));
  return pairSessions(activities)
    .filter((s) => s.ended_at === null && (wanted === null || nameKey(s.activity_type) === wanted))
    .map((s) => ({
      person_id: s.person_id,
      display_name: s.person_id === null ? null : (names.get(s.person_id) ?? null),
      activity_type: s.activity_type,
      started_at: s.started_at,
      open_minutes: Math.max(0, Math.round((now - Date.parse(s.started_at)) / 6_000) / 10),
      room_name: s.room_name,
      start_activity_id: s.start_activity_id,
      start_activity_type: s.start_activity_type,
    }))
    .sort((a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.start_activity_id - b.start_activity_id));
}
