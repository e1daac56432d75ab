/**
 * Where a person is, answered from the location state. This is the presence service's
 * fallback chain reduced to what the store holds today: a fresh location is `present_room`
 * (or `away` when the person was seen leaving), an old one `stale`, none `unknown`.
 * `present_home` and `asleep` need the hub providers (device tracker, bed sensor, night
 * anchor); until those exist they are never answered.
 */
import type { Knex } from "knex";
import { resolvePath } from "../../platform/core/data-paths";
import { latestLocationChange } from "./location-history.store";
import { getPersonLocation, type LocationSource, type PersonLocation } from "./locations.store";
import { minutesAgo, sameText } from "./match";
import type { PresenceStatus, Presence } from "../../../nodes/_kit/care-services";

/** Declared once, by the care-services seam the node handlers see. */
export type { PresenceStatus, Presence };

const PROVIDER_BY_SOURCE: Record<LocationSource, string> = {
  cts: "cts_location",
  camera: "camera_location",
  hub_sensor: "hub_sensor_location",
};

const nothing = (person_id: string | null, status: "unknown" | "stale", location: PersonLocation | null): Presence => ({
  status,
  person_id,
  room_id: null,
  room_name: null,
  dwell_minutes: null,
  confidence: 0,
  providers: status === "stale" ? ["stale_fallback"] : [],
  timestamp: null,
  location,
});

/** The answer when nothing is known, also used when the store cannot be read. */
export const unknownPresence = (personId: string | null): Presence => nothing(personId, "unknown", null);

export async function resolvePresence(db: Knex, personId: string | null, nowMs: number, staleAfterMinutes: number): Promise<Presence> {
  if (!personId) return nothing(null, "unknown", null);
  const location = await getPersonLocation(db, personId);
  if (!location) return nothing(personId, "unknown", null);
  if (minutesAgo(nowMs, location.updated_at) > staleAfterMinutes) return nothing(personId, "stale", location);
  const base = {
    person_id: personId,
    confidence: location.confidence,
    providers: [PROVIDER_BY_SOURCE[location.source] ?? location.source],
    timestamp: location.updated_at,
    location,
  };
  if (location.room_id === null && location.room_name === null) {
    return { ...base, status: "away", room_id: null, room_name: null, dwell_minutes: null };
  }
  return {
    ...base,
    status: "present_room",
    room_id: location.room_id,
    room_name: location.room_name,
    dwell_minutes: await dwellMinutes(db, location, nowMs),
  };
}

/**
 * Time since the person entered the room: the latest history entry when it is about this
 * room, else the location's own timestamp (a lower bound, never an invented longer stay).
 */
async function dwellMinutes(db: Knex, location: PersonLocation, nowMs: number): Promise<number> {
  const change = await latestLocationChange(db, location.person_id);
  const sameRoom = change !== null && ((location.room_id !== null && change.room_id === location.room_id) || sameText(change.room_name, location.room_name));
  const since = sameRoom && change.timestamp <= location.updated_at ? change.timestamp : location.updated_at;
  return Math.max(0, Math.round(minutesAgo(nowMs, since) * 10) / 10);
}

/** The configured person, else the first detected person, else `person_id` in pipeline_data. */
export function resolvePersonId(configured: string | undefined, data: Readonly<Record<string, unknown>>): string | null {
  if (configured && configured.trim() !== "") return configured.trim();
  for (const path of ["person_detections.0.person_id", "person_id"]) {
    const v = resolvePath(data, path);
    if (typeof v === "string" && v.trim() !== "") return v.trim();
  }
  return null;
}

export type HomeState = "at_home" | "asleep" | "away" | "state_unknown";

/** The home_state step's and filter's four answers; every one false when presence is unavailable. */
export function homeStates(status: PresenceStatus | null): Record<HomeState, boolean> {
  return {
    at_home: status === "present_room" || status === "present_home" || status === "asleep",
    asleep: status === "asleep",
    away: status === "away",
    state_unknown: status === "unknown" || status === "stale",
  };
}
