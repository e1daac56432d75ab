/**
 * A tracking fix older than what placed the person now (a message in flight at a kill comes
 * back 30 s later, behind newer ones): it cannot move the current location, which stays the
 * newest, but the room change it saw still happened, so it goes into the location history at
 * its capture time, between the changes around it. When it falls inside the stay the person is
 * in now, the newer evidence says they were back in that room by its time: a row for the
 * return follows, so the history never ends somewhere the person is not.
 */
import type { LocationChange } from "./location-history.store";
import type { Evidence, ResolvedRoom } from "./location-step";
import type { StoredLocation } from "./locations.store";
import { isoAt, sameText } from "./match";

type Change = Omit<LocationChange, "id">;

/** A row of history as the decision needs it; `id` when it is in the store already. */
export interface HistoryPoint {
  id?: number;
  room_name: string | null;
  timestamp: string;
}

export interface LatePlacement {
  /** Rows to add, oldest first. */
  insert: Change[];
  /** The next change was into the late fix's room: it happened by the fix's time (moved earlier). */
  earlier: { point: HistoryPoint; timestamp: string } | null;
}

/** Only continuous tracking is placed late: its fixes carry their capture time and are never held by the lock. */
export const isLateFix = (current: StoredLocation | null, ev: Evidence): current is StoredLocation =>
  current !== null && ev.source === "cts" && Date.parse(current.updated_at) > ev.atMs;

/**
 * Where a late fix goes: `before` is the change in force at its time, `after` the next one
 * (null: the fix falls in the current stay), `current` the location the newer evidence set.
 */
export function placeLateFix(
  ev: Evidence,
  room: ResolvedRoom,
  current: StoredLocation,
  before: HistoryPoint | null,
  after: HistoryPoint | null,
): LatePlacement {
  const none: LatePlacement = { insert: [], earlier: null };
  // The person was already in that room then: the history has it.
  if (before && sameText(before.room_name, room.name)) return none;
  const at = isoAt(ev.atMs);
  if (after && sameText(after.room_name, room.name)) return { insert: [], earlier: { point: after, timestamp: at } };
  const insert: Change[] = [
    {
      person_id: ev.person_id,
      room_id: room.id,
      room_name: room.name,
      source: ev.source,
      confidence: ev.confidence,
      direction_semantic: null,
      timestamp: at,
      mean_quality: ev.confidence,
      quality_samples: 1,
      ph_id: ev.ph_id ?? null,
    },
  ];
  if (!after && !sameText(current.room_name, room.name))
    insert.push({
      person_id: current.person_id,
      room_id: current.room_id,
      room_name: current.room_name,
      source: current.source,
      confidence: current.confidence,
      direction_semantic: null,
      timestamp: current.updated_at,
      mean_quality: current.mean_quality,
      quality_samples: current.quality_samples,
      ph_id: null,
    });
  return { insert, earlier: null };
}
