/**
 * What one piece of evidence does to a person's location state, decided without the database:
 * the transition to record, the new current location, the history row to append (or the stay
 * whose quality it refreshes) and the `location` event to publish. Applied one at a time by
 * location-fusion and many in one transaction by tracking-fixes; both read and write the same
 * rows, so they cannot disagree.
 */
import type { SensorEvent } from "../../platform/core/event-bus";
import type { LocationChange } from "./location-history.store";
import type { LocationSource, StoredLocation } from "./locations.store";
import { isoAt, minutesAgo, sameText } from "./match";
import type { RoomTransition } from "./transitions.store";

export interface Evidence {
  ph_id?: string;
  person_id: string;
  person_name: string | null;
  room_name: string;
  source: LocationSource;
  sensor_id: string;
  confidence: number;
  atMs: number;
  direction_raw: string | null;
  direction_semantic: string | null;
}

export interface ResolvedRoom {
  id: string | null;
  name: string;
}

export interface LocationLimits {
  /** `cts.lock_seconds`. */
  lock_seconds: number;
  /** `person_tracking.stale_timeout_minutes`. */
  stale_timeout_minutes: number;
}

export interface LocationStep {
  transition: Omit<RoomTransition, "id"> | null;
  next: StoredLocation;
  /** The new stay's first row, when the person changed room; else the current stay takes `next`'s quality. */
  append: Omit<LocationChange, "id"> | null;
  /** To publish once committed, when the person changed room. */
  event: SensorEvent | null;
}

/** Null: the evidence changes nothing (older than what placed the person, or held by the lock). */
export function locationStep(prev: StoredLocation | null, ev: Evidence, room: ResolvedRoom, limits: LocationLimits): LocationStep | null {
  // Evidence older than what placed the person now changes nothing (it was stored as a sighting).
  if (prev && Date.parse(prev.updated_at) > ev.atMs) return null;
  if (prev && heldByTracking(prev, ev, limits.lock_seconds)) return null;
  const roomName = room.name;
  const roomId = room.id;
  const at = isoAt(ev.atMs);
  const stale = prev !== null && minutesAgo(ev.atMs, prev.updated_at) > limits.stale_timeout_minutes;
  const changed = prev === null || stale || !sameText(prev.room_name, roomName);
  const semantic = ev.direction_semantic && ev.direction_semantic !== "stationary" ? ev.direction_semantic : null;

  let transition: Omit<RoomTransition, "id"> | null = null;
  if (changed || semantic) {
    const exiting = semantic === "exiting";
    const from = exiting || !changed ? { id: roomId, name: roomName } : { id: prev?.room_id ?? null, name: prev?.room_name ?? null };
    transition = {
      person_id: ev.person_id,
      person_name: ev.person_name,
      sensor_id: ev.sensor_id,
      direction_raw: ev.direction_raw,
      semantic,
      from_room_id: from.id,
      from_room_name: from.name,
      to_room_id: exiting ? null : roomId,
      to_room_name: exiting ? null : roomName,
      confidence: ev.confidence,
      timestamp: at,
    };
  }
  const next: StoredLocation =
    changed || !prev
      ? {
          person_id: ev.person_id,
          room_id: roomId,
          room_name: roomName,
          source: ev.source,
          confidence: ev.confidence,
          updated_at: at,
          mean_quality: ev.confidence,
          quality_samples: 1,
        }
      : { ...prev, source: ev.source, confidence: ev.confidence, updated_at: at, ...addSample(prev, ev.confidence) };
  if (!changed) return { transition, next, append: null, event: null };
  return {
    transition,
    next,
    append: {
      person_id: ev.person_id,
      room_id: roomId,
      room_name: roomName,
      source: ev.source,
      confidence: ev.confidence,
      direction_semantic: semantic,
      timestamp: at,
      mean_quality: ev.confidence,
      quality_samples: 1,
      ph_id: ev.ph_id ?? null,
    },
    event: {
      kind: "location",
      sensor_id: ev.sensor_id,
      room_name: roomName,
      input: {
        person_id: ev.person_id,
        person_name: ev.person_name,
        from_room: prev?.room_name ?? null,
        to_room: roomName,
        source: ev.source,
        direction_semantic: semantic,
      },
    },
  };
}

/**
 * The source-precedence lock: a continuous-tracking fix holds the person's room for
 * `cts.lock_seconds` against a weaker source (a camera batch, a presence sensor) that would
 * move them elsewhere; evidence for the same room still refreshes it.
 */
function heldByTracking(prev: StoredLocation, ev: Evidence, lockSeconds: number): boolean {
  if (ev.source === "cts" || prev.source !== "cts" || lockSeconds <= 0) return false;
  if (sameText(prev.room_name, ev.room_name)) return false;
  return ev.atMs - Date.parse(prev.updated_at) < lockSeconds * 1000;
}

/** The stay's running mean confidence with one more piece of evidence. */
function addSample(prev: StoredLocation, confidence: number): { mean_quality: number; quality_samples: number } {
  const n = prev.mean_quality === null ? 0 : prev.quality_samples;
  const mean = ((prev.mean_quality ?? 0) * n + confidence) / (n + 1);
  return { mean_quality: Math.round(mean * 1000) / 1000, quality_samples: n + 1 };
}
