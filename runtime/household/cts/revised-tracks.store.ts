/**
 * The identity the latest revision gave each track, kept beside RecentRevisions' memory so a
 * restart, or another instance taking the streams over, still places a late event of the
 * track under it (recent-revisions.ts).
 */
import type { Knex } from "knex";
import { deleteBefore } from "../../platform/db/delete-before";

export interface RevisedTrack {
  ph_id: string;
  /** null: the track is nobody known. */
  identity_id: string | null;
  /** Events of the track captured up to then take `identity_id`. */
  revised_ms: number;
  /** When the revision was applied, by the app clock. */
  recorded_ms: number;
}

/** Written in the revision's own transaction: remembered exactly when it is applied. */
export async function rememberRevisedTrack(trx: Knex, r: RevisedTrack): Promise<void> {
  await trx("cts_revised_tracks").insert(r).onConflict("ph_id").merge();
}

export async function revisedTracksSince(db: Knex, sinceMs: number): Promise<RevisedTrack[]> {
  const rows: RevisedTrack[] = await db("cts_revised_tracks").where("recorded_ms", ">=", sinceMs).select("*");
  return rows.map((r) => ({ ...r, revised_ms: Number(r.revised_ms), recorded_ms: Number(r.recorded_ms) }));
}

export async function forgetRevisedTracksBefore(db: Knex, beforeMs: number, signal?: AbortSignal): Promise<number> {
  return deleteBefore(db, "cts_revised_tracks", "recorded_ms", beforeMs, { signal });
}
