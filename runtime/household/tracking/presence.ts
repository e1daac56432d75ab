/**
 * Where a person is: the presence provider chain of `presence.providers` (night_anchor,
 * hub_bed_sensor, cts_location, hub_device_tracker, stale_fallback; docs/presence.md).
 * Each enabled provider offers at most one candidate; candidates under
 * `presence.min_confidence` are dropped; the highest priority wins, then the most recent;
 * with none left the answer is the unknown sentinel's.
 */
import type { Knex } from "knex";
import type { Settings } from "../../../settings";
import { resolvePath } from "../../platform/core/data-paths";
import type { HubStateReader } from "../hub/hub-state";
import { latestLocationChange } from "./location-history.store";
import { getPersonLocation, plainLocation, type StoredLocation } from "./locations.store";
import { minutesAgo, sameText } from "./match";
import { offer, type Candidate } from "./presence-providers";
import type { PresenceStatus, Presence } from "../../../vocabulary/presence";

/** Declared once, by the care-services seam the node handlers see. */
export type { PresenceStatus, Presence };

export interface PresenceDeps {
  db: Knex;
  hub: HubStateReader;
  /** The running chain (reloadable: read at each call). */
  presence: Settings["presence"];
  staleAfterMinutes: number;
  /** A room's id (as text) from its name; null when no room has that name. */
  roomId(name: string): Promise<string | null>;
}

const nothing = (person_id: string | null, location: StoredLocation | null, providers: string[]): Presence => ({
  status: "unknown",
  person_id,
  room_id: null,
  room_name: null,
  dwell_minutes: null,
  confidence: 0,
  providers,
  timestamp: null,
  location: location ? plainLocation(location) : null,
});

/** The answer when nothing is known, also used when the store cannot be read. */
export const unknownPresence = (personId: string | null): Presence => nothing(personId, null, []);

/** Every enabled provider's candidate, ranked: highest priority first, then the most recent. */
export async function rankCandidates(deps: PresenceDeps, personId: string, nowMs: number, location: StoredLocation | null): Promise<Candidate[]> {
  const input = { personId, nowMs, location, hub: deps.hub, staleAfterMinutes: deps.staleAfterMinutes };
  const offers = await Promise.all(deps.presence.providers.filter((p) => p.enabled).map((p) => offer(p, input)));
  return offers
    .filter((c): c is Candidate => c !== null && c.confidence >= deps.presence.min_confidence)
    .sort((a, b) => b.priority - a.priority || Date.parse(b.timestamp) - Date.parse(a.timestamp));
}

export async function resolvePresence(deps: PresenceDeps, personId: string | null, nowMs: number): Promise<Presence> {
  if (!personId) return nothing(null, null, ["unknown_sentinel"]);
  const location = await getPersonLocation(deps.db, personId);
  const ranked = await rankCandidates(deps, personId, nowMs, location);
  const providers = ranked.map((c) => c.provider);
  const best = ranked[0];
  if (!best) return nothing(personId, location, ["unknown_sentinel"]);
  const base = { person_id: personId, confidence: best.confidence, providers, timestamp: best.timestamp, location: location ? plainLocation(location) : null };
  // Stale: the keys are empty, as for unknown (the spec); the providers still say why.
  if (best.status === "stale") return { ...nothing(personId, location, providers), status: "stale" };
  const roomId = best.room_id ?? (best.room_name ? await deps.roomId(best.room_name) : null);
  const dwell =
    best.since === null
      ? null
      : best.provider === "cts_location" && location
        ? await dwellMinutes(deps.db, location, nowMs)
        : round1(minutesAgo(nowMs, best.since));
  return { ...base, status: best.status, room_id: roomId, room_name: best.room_name, dwell_minutes: dwell };
}

const round1 = (n: number): number => Math.max(0, Math.round(n * 10) / 10);

/**
 * Time since the person entered the room: the latest history entry when it is about this
 * room, else the location's own timestamp (a lower bound, never an invented longer stay).
 */
async function dwellMinutes(db: Knex, location: StoredLocation, nowMs: number): Promise<number> {
  const change = await latestLocationChange(db, location.person_id);
  const sameRoom = change !== null && ((location.room_id !== null && change.room_id === location.room_id) || sameText(change.room_name, location.room_name));
  const since = sameRoom && change.timestamp <= location.updated_at ? change.timestamp : location.updated_at;
  return round1(minutesAgo(nowMs, since));
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
