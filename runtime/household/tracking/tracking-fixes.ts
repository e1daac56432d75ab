/**
 * Many pieces of evidence applied in one transaction with a few statements for all of them, not
 * five or six each (on PostgreSQL one read and one write, platform/db/write-batch): the persons' locations are read at once, each piece is decided in order
 * against the state the pieces before it left (location-step, the same rules as one at a time),
 * and the writes go out together: every transition and every new stay in history, in order;
 * each person's last location; the quality of the stays that were only refreshed. A later fix
 * for a person supersedes an earlier one in the current location, and both stay in history.
 */
import type { Knex } from "knex";
import type { SensorEvent } from "../../platform/core/event-bus";
import type { WriteBatch } from "../../platform/db/write-batch";
import { changesAround, queueLocationChanges, queueStayQualities, setChangeTime, type LocationChange } from "./location-history.store";
import { isLateFix, placeLateFix, type HistoryPoint } from "./late-evidence";
import { isoAt } from "./match";
import { locationStep, type Evidence, type LocationLimits, type ResolvedRoom } from "./location-step";
import { lockPersonLocations, queuePersonLocations, type StoredLocation } from "./locations.store";
import { queueTransitions, type RoomTransition } from "./transitions.store";

/** Persons' locations read (and locked) in a transaction: `ids` were read, `found` holds those that have one. */
export interface LockedLocations {
  readonly ids: ReadonlySet<string>;
  readonly found: ReadonlyMap<string, StoredLocation>;
}

/** Reads and locks the persons' locations for the rest of the transaction. */
export async function lockForFixes(trx: Knex, personIds: readonly string[]): Promise<LockedLocations> {
  const ids = new Set(personIds);
  return { ids, found: await lockPersonLocations(trx, [...ids]) };
}

/**
 * Reads the persons' locations now (those `locked` did not read already in this transaction),
 * held until the transaction ends; queues the writes on `batch`, which the caller runs.
 */
export async function applyFixesIn(
  batch: WriteBatch,
  items: readonly { ev: Evidence; room: ResolvedRoom }[],
  limits: LocationLimits,
  locked?: LockedLocations,
): Promise<SensorEvent[]> {
  if (items.length === 0) return [];
  const unread = [...new Set(items.map((i) => i.ev.person_id))].filter((id) => !locked?.ids.has(id));
  const state = new Map(locked?.found);
  if (unread.length) for (const [id, l] of await lockPersonLocations(batch.db, unread)) state.set(id, l);
  const written = new Map<string, StoredLocation>();
  const transitions: Omit<RoomTransition, "id">[] = [];
  const appended: Omit<LocationChange, "id">[] = [];
  /** The stay each person is in, when it began in this batch (its row is not written yet). */
  const newStay = new Map<string, Omit<LocationChange, "id">>();
  /** The quality of stays that began before this batch, by person. */
  const refreshed = new Map<string, { mean_quality: number; quality_samples: number }>();
  const events: SensorEvent[] = [];

  /** Fixes older than where they found the person: placed in history once the batch's own moves are known. */
  const late: Array<{ ev: Evidence; room: ResolvedRoom; current: StoredLocation }> = [];

  for (const { ev, room } of items) {
    const current = state.get(ev.person_id) ?? null;
    const step = locationStep(current, ev, room, limits);
    if (!step) {
      if (isLateFix(current, ev)) late.push({ ev, room, current });
      continue;
    }
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

  for (const l of late) await placeLate(batch, l, appended);

  // The stays to refresh are the persons' latest before this batch: queued before its rows.
  if (refreshed.size)
    queueStayQualities(
      batch,
      [...refreshed].map(([person_id, q]) => ({ person_id, ...q })),
    );
  queueTransitions(batch, transitions);
  queuePersonLocations(batch, [...written.values()]);
  queueLocationChanges(batch, appended);
  return events;
}

/**
 * A late fix into history (late-evidence.ts), among the stored changes and this batch's own
 * (`appended`, not written yet; the rows it adds join them, so a second late fix sees them).
 */
async function placeLate(
  batch: WriteBatch,
  l: { ev: Evidence; room: ResolvedRoom; current: StoredLocation },
  appended: Array<Omit<LocationChange, "id">>,
): Promise<void> {
  const at = isoAt(l.ev.atMs);
  const stored = await changesAround(batch.db, l.ev.person_id, at);
  let before: HistoryPoint | null = stored.before;
  let after: HistoryPoint | null = stored.after;
  for (const row of appended) {
    if (row.person_id !== l.ev.person_id) continue;
    if (row.timestamp <= at && (!before || row.timestamp >= before.timestamp)) before = row;
    if (row.timestamp > at && (!after || row.timestamp < after.timestamp)) after = row;
  }
  const placed = placeLateFix(l.ev, l.room, l.current, before, after);
  if (placed.earlier) {
    const { point, timestamp } = placed.earlier;
    // A stored row is moved now, in the transaction (a batched update could meet the stay-quality update of the same row).
    if (point.id !== undefined) await setChangeTime(batch.db, point.id, timestamp);
    else point.timestamp = timestamp;
  }
  appended.push(...placed.insert);
}
