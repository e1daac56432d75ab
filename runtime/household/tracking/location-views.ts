/**
 * The location endpoints' answers: where each member is (`/persons/locations`,
 * `/persons/{id}/location`), their timeline (`/persons/{id}/history`) and camera sightings
 * (`/persons/{id}/sightings`). Staleness and quality are computed here, never stored as given.
 */
import type { PlatformContext } from "../../platform/context";
import { getPerson, listPersons, type Person } from "../persons/persons.service";
import { latestLocationChange, listLocationChanges, type LocationChange } from "./location-history.store";
import { getPersonLocation, listPersonLocations, type StoredLocation } from "./locations.store";
import { isoAt, sameText } from "./match";
import { listSightings, type Sighting } from "./sightings.store";

/** The location envelope. */
export interface MemberLocation {
  person_id: string;
  display_name: string;
  room_id: string | null;
  room_name: string | null;
  source: string | null;
  confidence: number | null;
  /** The stay's mean evidence confidence, computed by the server. */
  quality: number | null;
  updated_at: string | null;
  /** When the person entered the room (the change that put them there). */
  since: string | null;
  /** Older than `person_tracking.stale_timeout_minutes`, or never placed. */
  stale: boolean;
}

function envelope(
  ctx: PlatformContext,
  p: Pick<Person, "person_id" | "display_name">,
  l: StoredLocation | undefined,
  stay: LocationChange | null,
): MemberLocation {
  const staleBefore = ctx.clock.now() - ctx.settings.person_tracking.stale_timeout_minutes * 60_000;
  const sameStay = l !== undefined && stay !== null && sameText(stay.room_name, l.room_name) && stay.timestamp <= l.updated_at;
  return {
    person_id: p.person_id,
    display_name: p.display_name,
    room_id: l?.room_id ?? null,
    room_name: l?.room_name ?? null,
    source: l?.source ?? null,
    confidence: l?.confidence ?? null,
    quality: l?.mean_quality ?? null,
    updated_at: l?.updated_at ?? null,
    since: sameStay ? stay.timestamp : (l?.updated_at ?? null),
    stale: !l || Date.parse(l.updated_at) < staleBefore,
  };
}

export async function listMemberLocations(ctx: PlatformContext): Promise<MemberLocation[]> {
  const [persons, locations] = await Promise.all([listPersons(ctx), listPersonLocations(ctx.db)]);
  const byPerson = new Map(locations.map((l) => [l.person_id, l]));
  return Promise.all(
    persons.map(async (p) => envelope(ctx, p, byPerson.get(p.person_id), byPerson.has(p.person_id) ? await latestLocationChange(ctx.db, p.person_id) : null)),
  );
}

/** One member's location envelope; 404 for an unknown person. */
export async function memberLocation(ctx: PlatformContext, personId: string): Promise<MemberLocation> {
  const person = await getPerson(ctx, personId);
  const l = await getPersonLocation(ctx.db, personId);
  return envelope(ctx, person, l ?? undefined, l ? await latestLocationChange(ctx.db, personId) : null);
}

export interface HistoryEntry {
  room_id: string | null;
  room_name: string | null;
  source: string;
  confidence: number;
  quality: number | null;
  direction_semantic: string | null;
  timestamp: string;
}

/** The member's location changes in the last `hours`, newest first. */
export async function memberHistory(ctx: PlatformContext, personId: string, hours: number): Promise<HistoryEntry[]> {
  await getPerson(ctx, personId);
  const changes = await listLocationChanges(ctx.db, personId, isoAt(ctx.clock.now() - hours * 3_600_000));
  return changes.map((c) => ({
    room_id: c.room_id,
    room_name: c.room_name,
    source: c.source,
    confidence: c.confidence,
    quality: c.mean_quality,
    direction_semantic: c.direction_semantic,
    timestamp: c.timestamp,
  }));
}

/** The member's newest camera sightings. */
export async function memberSightings(ctx: PlatformContext, personId: string, limit: number): Promise<Array<Omit<Sighting, "id">>> {
  await getPerson(ctx, personId);
  return (await listSightings(ctx.db, personId, limit)).map(({ id: _id, ...s }) => s);
}
