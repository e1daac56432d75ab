/**
 * Many pieces of evidence applied in one transaction with a few statements for all of them, not
 * five or six each: the persons' locations are read at once, each piece is decided in order
 * against the state the pieces before it left (location-step, the same rules as one at a time),
 * and the writes go out together: every transition and every new stay in history, in order;
 * each person's last location; the quality of the stays that were only refreshed. A later fix
 * for a person supersedes an earlier one in the current location, and both stay in history.
 */
import type { Knex } from "knex";
import type { SensorEvent } from "../../platform/core/event-bus";
import { appendLocationChanges, latestLocationChanges, setChangeQualities, type LocationChange } from "./location-history.store";
import { locationStep, type Evidence, type LocationLimits, type ResolvedRoom } from "./location-step";
import { getPersonLocations, writePersonLocations, type StoredLocation } from "./locations.store";
import { recordTransitions, type RoomTransition } from "./transitions.store";

export async function applyFixesIn(trx: Knex, items: readonly { ev: Evidence; room: ResolvedRoom }[], limits: LocationLimits): Promise<SensorEvent[]> {
  if (items.length === 0) return [];
  const state = await getPersonLocations(trx, [...new Set(items.map((i) => i.ev.person_id))]);
  const written = new Map<string, StoredLocation>();
  const transitions: Omit<RoomTransition, "id">[] = [];
  const appended: Omit<LocationChange, "id">[] = [];
  /** The stay each person is in, when it began in this batch (its row is not written yet). */
  const newStay = new Map<string, Omit<LocationChange, "id">>();
  /** The quality of stays that began before this batch, by person. */
  const refreshed = new Map<string, { mean_quality: number; quality_samples: number }>();
  const events: SensorEvent[] = [];

  for (const { ev, room } of items) {
    const step = locationStep(state.get(ev.person_id) ?? null, ev, room, limits);
    if (!step) continue;
    state.set(ev.person_id, step.next);
    written.set(ev.person_id, step.next);
    if (step.transition) transitions.push(step.transition);
    if (step.append) {
      appended.push(step.append);
      newStay.set(ev.person_id, step.append);
    } else {
      const quality = { mean_quality: step.next.mean_quality ?? ev.confidence, quality_samples: step.next.quality_samples };
      const stay = newStay.get(ev.person_id);
      if (stay) Object.assign(stay, quality);
      else refreshed.set(ev.person_id, quality);
    }
    if (step.event) events.push(step.event);
  }

  // The stays to refresh are found before this batch's rows exist: they are the ones before them.
  if (refreshed.size) {
    const stays = await latestLocationChanges(trx, [...refreshed.keys()]);
    const qualities = [...refreshed].flatMap(([person, q]) => {
      const stay = stays.get(person);
      return stay ? [{ id: stay.id, ...q }] : [];
    });
    if (qualities.length) await setChangeQualities(trx, qualities);
  }
  if (transitions.length) await recordTransitions(trx, transitions);
  if (written.size) await writePersonLocations(trx, [...written.values()]);
  if (appended.length) await appendLocationChanges(trx, appended);
  return events;
}
