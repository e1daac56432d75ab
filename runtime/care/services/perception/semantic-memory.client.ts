/**
 * The semantic-memory service's client. Wire shapes as the original project's client uses
 * them (docs/decisions.md, "Perception services"):
 * - `GET {url}/api/v1/trends/{room_id}/current` → one room trend (404: none for the room);
 * - `GET {url}/api/v1/trends/{room_id}/snapshots?since_hours=N` → a list of snapshots;
 * - `GET {url}/api/v1/objects?room_id=…&since_minutes=N` → a list of object presences;
 * - `POST {url}/api/v1/observations/search` with `{room_id, since_minutes, objects_any,
 *   hazard_flags_any, query_text, limit, min_confidence}` → a list of observation hits;
 * - `POST {url}/api/v1/observations` with `{room_id, description, object_list, hazard_flags,
 *   embedding, source, observed_at}` → the stored observation (its `id`): how a scene sample's
 *   analysis is kept (care/services/perception/scene-samples.ts).
 * Fields missing from an item take the original's zero values; an item that is no object is
 * dropped; a body of the wrong kind (an object for a list) is a bad answer.
 */
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import type { MemoryObject, MemoryObservation, MemoryRoomTrend, MemoryTrendSnapshot, ObservationSearch } from "../../../../vocabulary/memory";
import { confidence, isObject, num, objects, str, strings, text, type Json } from "./coerce";
import { callService, unreadable, type ServiceSettings } from "./service-call";

export const SEMANTIC_MEMORY = "semantic memory";

const trend = (v: Json): MemoryRoomTrend => ({
  room_id: str(v.room_id),
  room_name: typeof v.room_name === "string" ? v.room_name : null,
  clutter_score: num(v.clutter_score),
  trend_direction: str(v.trend_direction, "stable"),
  overall_severity: str(v.overall_severity, "ok"),
  persistent_objects: strings(v.persistent_objects),
  novel_objects: strings(v.novel_objects),
  anomalies: objects(v.anomalies),
});

const snapshot = (v: Json): MemoryTrendSnapshot => ({
  period_start: text(v.period_start),
  unique_object_count: num(v.unique_object_count),
  object_counts: isObject(v.object_counts)
    ? Object.fromEntries(Object.entries(v.object_counts).filter((e): e is [string, number] => typeof e[1] === "number"))
    : {},
  persistent_objects: strings(v.persistent_objects),
  novel_objects: strings(v.novel_objects),
  embedding_variance: num(v.embedding_variance),
});

const object = (v: Json): MemoryObject => ({
  label: str(v.label),
  observation_count: num(v.observation_count),
  last_seen_at: text(v.last_seen_at),
  ...confidence(v),
});

const observation = (v: Json): MemoryObservation => ({
  id: num(v.id),
  room_id: str(v.room_id),
  observed_at: text(v.observed_at),
  description: str(v.description),
  object_list: strings(v.object_list),
  hazard_flags: strings(v.hazard_flags),
  text_similarity: num(v.text_similarity),
  image_similarity: num(v.image_similarity),
  ...confidence(v),
});

function listOf<T>(raw: unknown, item: (v: Json) => T, what: string): ServiceAnswer<T[]> {
  if (!Array.isArray(raw)) return unreadable(SEMANTIC_MEMORY, what);
  return { ok: true, value: objects(raw).map(item) };
}

const roomPath = (roomId: string): string => `/api/v1/trends/${encodeURIComponent(roomId)}`;

export async function roomTrend(settings: ServiceSettings, roomId: string, signal: AbortSignal): Promise<ServiceAnswer<MemoryRoomTrend | null>> {
  const raw = await callService(SEMANTIC_MEMORY, settings, { method: "GET", path: `${roomPath(roomId)}/current` }, signal, true);
  if (!raw.ok) return raw;
  if ("notFound" in raw || raw.value === null) return { ok: true, value: null };
  if (!isObject(raw.value)) return unreadable(SEMANTIC_MEMORY, "a room trend");
  return { ok: true, value: trend(raw.value) };
}

export async function trendSnapshots(
  settings: ServiceSettings,
  roomId: string,
  sinceHours: number,
  signal: AbortSignal,
): Promise<ServiceAnswer<MemoryTrendSnapshot[]>> {
  const raw = await callService(
    SEMANTIC_MEMORY,
    settings,
    { method: "GET", path: `${roomPath(roomId)}/snapshots`, query: { since_hours: sinceHours } },
    signal,
    true,
  );
  if (!raw.ok) return raw;
  if ("notFound" in raw) return { ok: true, value: [] };
  return listOf(raw.value, snapshot, "a list of trend snapshots");
}

export async function recentObjects(
  settings: ServiceSettings,
  roomId: string,
  sinceMinutes: number,
  signal: AbortSignal,
): Promise<ServiceAnswer<MemoryObject[]>> {
  const raw = await callService(
    SEMANTIC_MEMORY,
    settings,
    { method: "GET", path: "/api/v1/objects", query: { room_id: roomId, since_minutes: sinceMinutes } },
    signal,
  );
  if (!raw.ok) return raw;
  return listOf(raw.value, object, "a list of objects");
}

export async function searchObservations(settings: ServiceSettings, q: ObservationSearch, signal: AbortSignal): Promise<ServiceAnswer<MemoryObservation[]>> {
  const body = JSON.stringify({
    room_id: q.room_id,
    since_minutes: q.since_minutes,
    objects_any: [],
    hazard_flags_any: [],
    query_text: "",
    limit: q.limit,
    min_confidence: q.min_confidence,
  });
  const raw = await callService(
    SEMANTIC_MEMORY,
    settings,
    { method: "POST", path: "/api/v1/observations/search", headers: { "Content-Type": "application/json" }, body },
    signal,
  );
  if (!raw.ok) return raw;
  return listOf(raw.value, observation, "a list of observations");
}

/** What a scene sample's analysis stores (the original's `ObservationCreate`). */
export interface ObservationCreate {
  room_id: string;
  description: string;
  object_list: string[];
  hazard_flags: string[];
  embedding: number[];
  /** The original's `scene_intel` for what came from the tracking service's keyframes. */
  source: string;
  observed_at: string;
}

/** Stores one observation; answers the id the service gave it. */
export async function createObservation(settings: ServiceSettings, obs: ObservationCreate, signal: AbortSignal): Promise<ServiceAnswer<{ id: number }>> {
  const raw = await callService(
    SEMANTIC_MEMORY,
    settings,
    { method: "POST", path: "/api/v1/observations", headers: { "Content-Type": "application/json" }, body: JSON.stringify(obs) },
    signal,
  );
  if (!raw.ok) return raw;
  if (!isObject(raw.value)) return unreadable(SEMANTIC_MEMORY, "a stored observation");
  return { ok: true, value: { id: num(raw.value.id) } };
}
