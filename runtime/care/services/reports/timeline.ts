/**
 * A member's timeline: their activities, camera sightings and location changes of the last
 * `minutes`, merged oldest first. Each entry says what happened in a line (`summary`) and
 * carries the record's own fields in `details`.
 */
import type { CareContext } from "../../core/context";
import { isoAt } from "../../../platform/core/clock";
import { ValidationError } from "../../../platform/core/errors";
import { sameName } from "../../../platform/core/name-key";
import { listActivitiesBetween, type Activity } from "../../../household/activities/activities.store";
import { getPerson } from "../../../household/persons/persons.service";
import { listLocationChangesBetween, type LocationChange } from "../../../household/tracking/location-history.store";
import { listSightingsBetween, type Sighting } from "../../../household/tracking/sightings.store";
import { sessionEdge } from "./sessions";

export const TIMELINE_DEFAULT_MINUTES = 60;
/** A week. */
export const TIMELINE_MAX_MINUTES = 10_080;
/** A longer window keeps its newest entries. */
export const TIMELINE_MAX_ENTRIES = 1_000;

export interface TimelineEntry {
  timestamp: string;
  kind: "activity" | "sighting" | "location";
  /** One line: "eating in kitchen", "seen by kitchen_cam in kitchen", "moved to kitchen from hallway". */
  summary: string;
  room_name: string | null;
  details: Record<string, unknown>;
}

const where = (room: string | null): string => (room ? ` in ${room}` : "");

function activityEntry(a: Activity): TimelineEntry {
  const { edge, session_type } = sessionEdge(a);
  const what = edge === "start" ? `${session_type} started` : edge === "end" ? `${session_type} ended` : a.activity_type;
  return {
    timestamp: a.timestamp,
    kind: "activity",
    summary: `${what}${where(a.room_name)}`,
    room_name: a.room_name,
    details: {
      activity_id: a.id,
      activity_type: a.activity_type,
      session: edge,
      confidence: a.confidence,
      metadata: a.metadata_json,
      rule_id: a.rule_id,
      execution_id: a.execution_id,
    },
  };
}

function sightingEntry(s: Sighting): TimelineEntry {
  const moving = s.direction_semantic && s.direction_semantic !== "stationary" ? `, ${s.direction_semantic}` : "";
  return {
    timestamp: s.timestamp,
    kind: "sighting",
    summary: `seen by ${s.sensor_id}${where(s.room_name)}${moving}`,
    room_name: s.room_name,
    details: {
      sensor_id: s.sensor_id,
      confidence: s.confidence,
      direction_raw: s.direction_raw,
      direction_semantic: s.direction_semantic,
      media_path: s.media_path,
    },
  };
}

function locationEntry(c: LocationChange, from: string | null): TimelineEntry {
  // A location gone stale and placed again in the same room is history too, but no move.
  const again = sameName(from, c.room_name);
  const to = again ? `placed in ${c.room_name} again` : c.room_name ? `moved to ${c.room_name}` : "left the rooms tracked";
  return {
    timestamp: c.timestamp,
    kind: "location",
    summary: `${to}${from && !again ? ` from ${from}` : ""} (${c.source})`,
    room_name: c.room_name,
    details: { room_id: c.room_id, from_room: from, source: c.source, confidence: c.confidence, direction_semantic: c.direction_semantic },
  };
}

// At the same instant a sighting comes first, then the move it caused, then what was recorded.
const KIND_ORDER: Record<TimelineEntry["kind"], number> = { sighting: 0, location: 1, activity: 2 };

/** The member's timeline of the last `minutes` (60 by default, 1 to a week), oldest first; 404 for an unknown person. */
export async function personTimeline(ctx: CareContext, q: { person_id: string; minutes?: number }): Promise<TimelineEntry[]> {
  const minutes = q.minutes ?? TIMELINE_DEFAULT_MINUTES;
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > TIMELINE_MAX_MINUTES) {
    throw new ValidationError(`minutes must be more than 0 and at most ${TIMELINE_MAX_MINUTES} (a week)`);
  }
  await getPerson(ctx, q.person_id);
  const now = ctx.clock.now();
  const since = isoAt(now - minutes * 60_000);
  // The instant itself is in the window: `until` is exclusive for sightings and moves.
  const until = isoAt(now + 1);
  const [activities, sightings, changes] = await Promise.all([
    listActivitiesBetween(ctx.db, { since, until: isoAt(now), person_id: q.person_id }),
    listSightingsBetween(ctx.db, q.person_id, since, until),
    listLocationChangesBetween(ctx.db, q.person_id, since, until),
  ]);
  const moves: TimelineEntry[] = [];
  changes.forEach((c, i) => {
    if (c.timestamp >= since) moves.push(locationEntry(c, i > 0 ? changes[i - 1].room_name : null));
  });
  const entries = [
    ...activities.map((a) => ({ entry: activityEntry(a), id: a.id })),
    ...sightings.map((s) => ({ entry: sightingEntry(s), id: s.id })),
    ...moves.map((entry, i) => ({ entry, id: i })),
  ].sort((a, b) => Date.parse(a.entry.timestamp) - Date.parse(b.entry.timestamp) || KIND_ORDER[a.entry.kind] - KIND_ORDER[b.entry.kind] || a.id - b.id);
  return entries.slice(-TIMELINE_MAX_ENTRIES).map((e) => e.entry);
}
