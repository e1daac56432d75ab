/** Stored daily reports (`daily_reports`, migration 018): one row per member and local day. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../../platform/db/delete-before";
import { fromJsonText, toJsonText } from "../../../platform/db/json-column";

export interface StoredReportRow {
  person_id: string;
  report_date: string;
  timezone: string;
  report_json: string;
  generated_at: string;
}

/** The stored report of this person and day, as it was stored (JSON), or null. */
export async function readStoredReport<T>(db: Knex, personId: string, date: string): Promise<T | null> {
  const row: Pick<StoredReportRow, "report_json"> | undefined = await db("daily_reports")
    .where({ person_id: personId, report_date: date })
    .first("report_json");
  return row ? fromJsonText<T | null>(row.report_json, null) : null;
}

/**
 * Stores the report unless one is already stored for that person and day (the first stays);
 * true when this call stored it.
 */
export async function storeReport(
  db: Knex,
  r: { person_id: string; report_date: string; timezone: string; generated_at: string; report: unknown },
): Promise<boolean> {
  const rows: unknown[] = await db("daily_reports")
    .insert({ person_id: r.person_id, report_date: r.report_date, timezone: r.timezone, report_json: toJsonText(r.report), generated_at: r.generated_at })
    .onConflict(["person_id", "report_date"])
    .ignore()
    .returning("id");
  return rows.length > 0;
}

/**
 * Replaces the stored report of that person and day (history under it was rewritten by an
 * identity revision); true when there was one to replace. A day with no stored report stays
 * without: it is built from the corrected history when it is first stored.
 */
export async function replaceReport(
  db: Knex,
  r: { person_id: string; report_date: string; timezone: string; generated_at: string; report: unknown },
): Promise<boolean> {
  const n = await db("daily_reports")
    .where({ person_id: r.person_id, report_date: r.report_date })
    .update({ timezone: r.timezone, report_json: toJsonText(r.report), generated_at: r.generated_at });
  return n > 0;
}

/** `person_id|report_date` of every report stored for a day on or after `fromDate`. */
export async function storedReportKeys(db: Knex, fromDate: string): Promise<Set<string>> {
  const rows: Array<Pick<StoredReportRow, "person_id" | "report_date">> = await db("daily_reports")
    .where("report_date", ">=", fromDate)
    .select("person_id", "report_date");
  return new Set(rows.map((r) => `${r.person_id}|${r.report_date}`));
}

/** Retention (docs/retention.md): deletes at most `limit` stored reports of a day before `beforeDate` (`YYYY-MM-DD`). */
export function pruneReportsBefore(db: Knex, beforeDate: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "daily_reports", `report_date < ?`, [beforeDate], limit);
}
