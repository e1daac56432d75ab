/** `GET /persons/locations`: where each member of the household was last placed, and whether that is stale. */
import type { PlatformContext } from "../../platform/context";
import { listPersonLocations } from "../tracking/locations.store";
import { listPersons } from "./persons.service";

export interface MemberLocation {
  person_id: string;
  display_name: string;
  room_id: string | null;
  room_name: string | null;
  source: string | null;
  confidence: number | null;
  updated_at: string | null;
  /** Older than `person_tracking.stale_timeout_minutes`, or never placed. */
  stale: boolean;
}

export async function listMemberLocations(ctx: PlatformContext): Promise<MemberLocation[]> {
  const [persons, locations] = await Promise.all([listPersons(ctx), listPersonLocations(ctx.db)]);
  const byPerson = new Map(locations.map((l) => [l.person_id, l]));
  const staleBefore = ctx.clock.now() - ctx.settings.person_tracking.stale_timeout_minutes * 60_000;
  return persons.map((p) => {
    const l = byPerson.get(p.person_id);
    return {
      person_id: p.person_id,
      display_name: p.display_name,
      room_id: l?.room_id ?? null,
      room_name: l?.room_name ?? null,
      source: l?.source ?? null,
      confidence: l?.confidence ?? null,
      updated_at: l?.updated_at ?? null,
      stale: !l || Date.parse(l.updated_at) < staleBefore,
    };
  });
}
