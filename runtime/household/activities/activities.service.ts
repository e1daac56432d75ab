/** Person activities: one row per recorded activity (eating, medication, ...). */
import type { PlatformContext } from "../../platform/context";
import { fromJsonText } from "../../platform/db/json-column";
import { storedSpellings } from "../../platform/db/name-match";
import type { Activity } from "../../../vocabulary/activities";

/** Declared once, by the care-services seam the node handlers see. */
export type { Activity };

export interface ActivityFilters {
  person_id?: string;
  activity_type?: string;
  room_name?: string;
  since?: string;
  limit: number;
  offset: number;
}

export async function listActivities(ctx: PlatformContext, f: ActivityFilters): Promise<Activity[]> {
  const q = ctx.db("person_activities").select("*").orderBy("timestamp", "desc").orderBy("id", "desc").limit(f.limit).offset(f.offset);
  if (f.person_id !== undefined) q.where("person_id", f.person_id);
  if (f.activity_type !== undefined) q.where("activity_type", f.activity_type);
  // The room in any case or Unicode spelling ('küche' finds 'KÜCHE'), the same on both stores.
  if (f.room_name !== undefined) q.whereIn("room_name", await storedSpellings(ctx.db, "person_activities", "room_name", f.room_name));
  if (f.since !== undefined) q.where("timestamp", ">=", f.since);
  const rows: Array<Omit<Activity, "metadata_json"> & { metadata_json: string }> = await q;
  return rows.map((r) => ({ ...r, confidence: Number(r.confidence), metadata_json: fromJsonText(r.metadata_json, {}) }));
}
