/**
 * An identity revision of a continuous-tracking track: the tracking service decided the track
 * (`ph_id`) was someone else (or nobody known). The history rows the track placed under the
 * wrong person are superseded (soft-deleted, kept with the revision's id for the record) and,
 * when the new identity is known, written again under them; the new person's current location
 * follows when the corrected stay is newer than what placed them. Timelines and reports read
 * only live rows, so they follow the correction.
 */
import type { Knex } from "knex";
import { appendLocationChange, changesOfTrackNotBy, latestLocationChange, supersedeChanges, type LocationChange } from "./location-history.store";
import { deletePersonLocation, getPersonLocation, lockPersonLocations, writePersonLocation } from "./locations.store";

export interface TrackRevision {
  ph_id: string;
  revision_id: string;
  /** null: the track is nobody known now (demoted to unknown). */
  new_person_id: string | null;
}

export interface RevisionOutcome {
  superseded: number;
  rewritten: number;
  /** Whose history changed: the people the track had been placed under, and the new identity. */
  person_ids: string[];
  /** The earliest history row rewritten (null: none): what was known from then on may differ. */
  from: string | null;
}

export async function reviseTrack(trx: Knex, r: TrackRevision, at: string): Promise<RevisionOutcome> {
  const wrong = await changesOfTrackNotBy(trx, r.ph_id, r.new_person_id);
  if (wrong.length === 0) return { superseded: 0, rewritten: 0, person_ids: [], from: null };
  const wrongPersons = [...new Set(wrong.map((c) => c.person_id))];
  const touched = { person_ids: r.new_person_id ? [...new Set([...wrongPersons, r.new_person_id])] : wrongPersons, from: wrong[0].timestamp };
  // Their locations are read below and written from what was read.
  await lockPersonLocations(trx, touched.person_ids);
  await supersedeChanges(
    trx,
    wrong.map((c) => c.id),
    r.revision_id,
    at,
  );
  for (const personId of wrongPersons)
    await fallBack(
      trx,
      personId,
      wrong.filter((c) => c.person_id === personId),
    );
  if (!r.new_person_id) return { superseded: wrong.length, rewritten: 0, ...touched };
  for (const c of wrong) {
    const { id: _id, ...rest } = c;
    await appendLocationChange(trx, { ...rest, person_id: r.new_person_id, revision_id: r.revision_id });
  }
  const newest = wrong[wrong.length - 1];
  const current = await getPersonLocation(trx, r.new_person_id);
  // At the same instant the correction wins: it is the later knowledge.
  if (!current || Date.parse(current.updated_at) <= Date.parse(newest.timestamp)) {
    await writePersonLocation(trx, {
      person_id: r.new_person_id,
      room_id: newest.room_id,
      room_name: newest.room_name,
      source: newest.source,
      confidence: newest.confidence,
      updated_at: newest.timestamp,
      mean_quality: newest.mean_quality,
      quality_samples: newest.quality_samples,
    });
  }
  return { superseded: wrong.length, rewritten: wrong.length, ...touched };
}

/**
 * The wrongly placed person was last placed by the superseded track: they go back to their
 * last live change (kept at its own time, so it reads stale when it is old: where they are now
 * is not known), or lose their location when no change is left.
 */
async function fallBack(trx: Knex, personId: string, superseded: readonly LocationChange[]): Promise<void> {
  const current = await getPersonLocation(trx, personId);
  const newest = superseded[superseded.length - 1];
  if (!current || current.source !== "cts" || Date.parse(current.updated_at) > Date.parse(newest.timestamp) + 1000) return;
  if (current.room_name !== newest.room_name) return;
  const previous = await latestLocationChange(trx, personId);
  if (!previous) {
    await deletePersonLocation(trx, personId);
    return;
  }
  await writePersonLocation(trx, {
    person_id: personId,
    room_id: previous.room_id,
    room_name: previous.room_name,
    source: previous.source,
    confidence: previous.confidence,
    updated_at: previous.timestamp,
    mean_quality: previous.mean_quality,
    quality_samples: previous.quality_samples,
  });
}
