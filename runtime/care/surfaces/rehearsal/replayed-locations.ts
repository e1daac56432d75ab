/**
 * Where people were during a rehearsal: each recorded location change is written to the
 * scratch store at its time, and a sighting that confirms a person where they are keeps the
 * location fresh (as the location fusion did live), written only when something is about to
 * read it: a sighting every few seconds all day would otherwise cost a write each.
 */
import type { Knex } from "knex";
import type { LocationChange } from "../../../household/tracking/location-history.store";
import { writePersonLocation, type StoredLocation } from "../../../household/tracking/locations.store";

export class ReplayedLocations {
  private readonly current = new Map<string, StoredLocation>();
  private readonly stale = new Set<string>();

  constructor(private readonly db: Knex) {}

  async moved(c: LocationChange): Promise<void> {
    const l: StoredLocation = {
      person_id: c.person_id,
      room_id: c.room_id,
      room_name: c.room_name,
      source: c.source,
      confidence: c.confidence,
      updated_at: c.timestamp,
      mean_quality: c.mean_quality,
      quality_samples: c.quality_samples,
    };
    this.current.set(c.person_id, l);
    this.stale.delete(c.person_id);
    await writePersonLocation(this.db, l);
  }

  seen(personId: string, roomName: string | null, atIso: string): void {
    const l = this.current.get(personId);
    if (!l || l.room_name === null || l.room_name !== roomName || atIso <= l.updated_at) return;
    l.updated_at = atIso;
    this.stale.add(personId);
  }

  async flush(): Promise<void> {
    for (const id of this.stale) await writePersonLocation(this.db, this.current.get(id) as StoredLocation);
    this.stale.clear();
  }
}
