/**
 * Name comparisons against the store, with the key of `core/name-key` instead of SQL
 * `lower()` (ASCII-only on SQLite, locale-bound on PostgreSQL).
 */
import type { Knex } from "knex";
import { nameKey } from "../core/name-key";

/**
 * The spellings stored in `table.column` that are the same name as `wanted` ('KÜCHE',
 * 'Küche', …), for a `whereIn`. For free-text name columns without a key column of their
 * own (activities', alerts' `room_name`): a household has few distinct room names, so the
 * distinct values are read and compared in JavaScript, and paging stays in SQL.
 */
export async function storedSpellings(db: Knex, table: string, column: string, wanted: string): Promise<string[]> {
  const key = nameKey(wanted);
  const rows: Array<Record<string, string>> = await db(table).distinct(column).whereNotNull(column);
  return rows.map((r) => r[column]).filter((v) => nameKey(v) === key);
}

/** Did a write fail on a unique index (a name taken at the same moment by another writer)? */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || (code === "SQLITE_CONSTRAINT" && /UNIQUE/.test(String((err as Error).message)));
}
