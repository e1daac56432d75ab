/**
 * The pieces of a multi-row insert's SQL that both forms share (row-insert's `values` lists
 * and pg-array-insert's arrays): the options, the column list, the conflict and returning
 * clauses.
 */
import type { Knex } from "knex";

export interface RowInsertOptions {
  /** `ignore`: rows whose key exists are skipped; `merge`: they take the new values (all columns but the key). */
  onConflict?: { columns: readonly string[]; action: "ignore" | "merge" };
  /** One column to return for each row inserted (or merged). */
  returning?: string;
}

/** A statement as text with `?` placeholders and its bindings. */
export interface SqlStatement {
  sql: string;
  bindings: unknown[];
}

type Row = Readonly<Record<string, unknown>>;

export const isPostgres = (db: Knex): boolean => (db.client as { driverName?: string }).driverName === "pg";

export const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

/** An insert's `on conflict` and `returning` clauses (with a leading space), or nothing. */
export function conflictAndReturning(columns: readonly string[], opts: RowInsertOptions): string {
  let sql = "";
  const conflict = opts.onConflict;
  if (conflict) {
    const target = `on conflict (${conflict.columns.map(quote).join(", ")})`;
    const updated = columns.filter((c) => !conflict.columns.includes(c));
    sql +=
      conflict.action === "ignore" || updated.length === 0
        ? ` ${target} do nothing`
        : ` ${target} do update set ${updated.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(", ")}`;
  }
  if (opts.returning) sql += ` returning ${quote(opts.returning)}`;
  return sql;
}

/** The columns every row has, in the first row's order; null when the rows differ or hold `undefined`. */
export function uniformColumns(rows: readonly Row[]): string[] | null {
  const columns = Object.keys(rows[0]);
  for (const row of rows) {
    const keys = Object.keys(row);
    if (keys.length !== columns.length) return null;
    for (let i = 0; i < columns.length; i++) if (keys[i] !== columns[i] || row[columns[i]] === undefined) return null;
  }
  return columns;
}
