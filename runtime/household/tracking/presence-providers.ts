/**
 * The presence providers of the chain (settings `presence.providers`): each reads its
 * evidence and offers at most one candidate (a status, maybe a room, a confidence, since
 * when). The chain (presence.ts) keeps the confident candidates and picks one. Hub-backed
 * providers read through the `HubStateReader`; without a hub they offer nothing.
 */
import type { PresenceProviderConfig } from "../../../settings";
import type { HubEntityState, HubStateReader } from "../hub/hub-state";
import type { StoredLocation } from "./locations.store";
import { minutesAgo, sameText } from "./match";
import type { PresenceStatus } from "../../../vocabulary/presence";

export interface Candidate {
  provider: string;
  priority: number;
  status: PresenceStatus;
  room_name: string | null;
  room_id: string | null;
  confidence: number;
  /** When the evidence was last confirmed or changed (ISO-8601). */
  timestamp: string;
  /** When the stay began, for dwell; null when there is no stay (away, stale). */
  since: string | null;
}

export interface ProviderInput {
  personId: string;
  nowMs: number;
  /** The person's fused location state (cameras, presence sensors, tracking), fresh or not. */
  location: StoredLocation | null;
  hub: HubStateReader;
  staleAfterMinutes: number;
}

type Offer = Omit<Candidate, "provider" | "priority">;

const entity = (template: string, personId: string): string => template.replaceAll("{person_id}", personId);

/** Evidence of this age (seconds) is too old for a provider with this ttl. */
const expired = (ttlSeconds: number | null, nowMs: number, at: string): boolean => ttlSeconds !== null && minutesAgo(nowMs, at) * 60 > ttlSeconds;

const isOn = (s: HubEntityState | null): s is HubEntityState => s !== null && s.state.toLowerCase() === "on";

async function nightAnchor(p: Extract<PresenceProviderConfig, { name: "night_anchor" }>, i: ProviderInput): Promise<Offer | null> {
  const o = p.options;
  const bed = await i.hub.state(entity(o.bed_entity, i.personId));
  if (!isOn(bed) || expired(p.ttl_seconds, i.nowMs, bed.last_changed)) return null;
  for (const light of o.light_entities) {
    const s = await i.hub.state(entity(light, i.personId));
    if (s === null || s.state.toLowerCase() !== "off") return null;
  }
  const l = i.location;
  if (l) {
    // The last room must be one the anchor allows; a recent move outside the anchor room releases it.
    if (!o.anchor_rooms.some((r) => sameText(r, l.room_name))) return null;
    if (!sameText(l.room_name, o.room_name) && minutesAgo(i.nowMs, l.updated_at) <= o.release_minutes) return null;
  }
  return { status: "asleep", room_name: o.room_name, room_id: null, confidence: o.confidence, timestamp: bed.last_changed, since: bed.last_changed };
}

async function bedSensor(p: Extract<PresenceProviderConfig, { name: "hub_bed_sensor" }>, i: ProviderInput): Promise<Offer | null> {
  const bed = await i.hub.state(entity(p.options.bed_entity, i.personId));
  if (!isOn(bed) || expired(p.ttl_seconds, i.nowMs, bed.last_changed)) return null;
  return {
    status: "asleep",
    room_name: p.options.room_name,
    room_id: null,
    confidence: p.options.confidence,
    timestamp: bed.last_changed,
    since: bed.last_changed,
  };
}

function ctsLocation(p: Extract<PresenceProviderConfig, { name: "cts_location" }>, i: ProviderInput): Offer | null {
  const l = i.location;
  if (!l || expired(p.ttl_seconds ?? i.staleAfterMinutes * 60, i.nowMs, l.updated_at)) return null;
  const away = l.room_id === null && l.room_name === null;
  return {
    status: away ? "away" : "present_room",
    room_name: l.room_name,
    room_id: l.room_id,
    confidence: l.confidence,
    timestamp: l.updated_at,
    since: away ? null : l.updated_at,
  };
}

const NO_STATE = new Set(["unknown", "unavailable", ""]);

async function deviceTracker(p: Extract<PresenceProviderConfig, { name: "hub_device_tracker" }>, i: ProviderInput): Promise<Offer | null> {
  const s = await i.hub.state(entity(p.options.entity, i.personId));
  if (s === null || NO_STATE.has(s.state.toLowerCase()) || expired(p.ttl_seconds, i.nowMs, s.last_changed)) return null;
  const home = p.options.home_states.some((h) => h.toLowerCase() === s.state.toLowerCase());
  return {
    status: home ? "present_home" : "away",
    room_name: null,
    room_id: null,
    confidence: p.options.confidence,
    timestamp: s.last_changed,
    since: home ? s.last_changed : null,
  };
}

function staleFallback(p: Extract<PresenceProviderConfig, { name: "stale_fallback" }>, i: ProviderInput): Offer | null {
  const l = i.location;
  if (!l || expired(p.ttl_seconds, i.nowMs, l.updated_at)) return null;
  return { status: "stale", room_name: null, room_id: null, confidence: p.options.confidence, timestamp: l.updated_at, since: null };
}

/** The provider's candidate, or null when its evidence says nothing (or is too old). */
export async function offer(p: PresenceProviderConfig, i: ProviderInput): Promise<Candidate | null> {
  let o: Offer | null;
  switch (p.name) {
    case "night_anchor":
      o = await nightAnchor(p, i);
      break;
    case "hub_bed_sensor":
      o = await bedSensor(p, i);
      break;
    case "cts_location":
      o = ctsLocation(p, i);
      break;
    case "hub_device_tracker":
      o = await deviceTracker(p, i);
      break;
    case "stale_fallback":
      o = staleFallback(p, i);
      break;
  }
  return o ? { ...o, provider: p.name, priority: p.priority } : null;
}
