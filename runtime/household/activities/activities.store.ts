/**
 * Person activities as the rules engine writes and reads them: activity_detection records
 * one, verification and the person_activity filter look for them. The REST listing is in
 * activities.service.ts.
 */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../platform/db/delete-before";
import type { Activity } from "./activities.service";
import { fromJsonText, toJsonText } from "../../platform/db/json-column";

export type { Activity };

export type NewActivity = Omit<Activity, "id">;

export async function recordActivity(db: Knex, a: NewActivity): Promise<Activity> {
  const [inserted] = await db("person_activities")
    .insert({ ...a, metadata_json: toJsonText(a.metadata_json) })
    .returning("id");
  const id = typeof inserted === "object" ? Number((inserted as { id: number }).id) : Number(inserted);
  return { id, ...a };
}

/**
 * Activities with `since <= timestamp <= until`, newest first, optionally of one person.
 * Type and room are matched by the caller (case-insensitively, see match.ts).
 */
export async function listActivitiesBetween(db: Knex, q: { since: string; until: string; person_id?: string | null }): Promise<Activity[]> {
  const query = db("person_activities").select("*").whereBetween("timestamp", [q.since, q.until]).orderBy("timestamp", "desc").orderBy("id", "desc");
  if (q.person_id) query.where("person_id", q.person_id);
  const rows: Array<Omit<Activity, "metadata_json"> & { metadata_json: string }> = await query;
  return rows.map((r) => ({ ...r, id: Number(r.id), confidence: Number(r.confidence), metadata_json: fromJsonText(r.metadata_json, {}) }));
}

/** Retention (docs/retention.md): deletes at most `limit` activities recorded before the cutoff; returns how many. */
export function pruneActivitiesBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "person_activities", `"timestamp" < ?`, [cutoffIso], limit);
}
