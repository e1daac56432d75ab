/**
 * Many rows into one table with plain `insert ... values (...), (...)` statements whose text is
 * built once per shape (table, columns, row count, conflict rule) and kept. knex's builder
 * writes a SQLite multi-row insert as `select ? as "col" ... union all select ...`, quoting
 * every column of every row again; on tracking's path (2,000 events a second, six inserts a
 * batch) that was the largest source of garbage in the process and a tenth of its CPU
 * (issue 26). Both stores accept the VALUES form (SQLite since 3.7.11) and the same
 * `on conflict` and `returning` clauses.
 *
 * Rows whose keys differ, or that hold `undefined` (which knex writes as the column's default
 * on PostgreSQL and as NULL on SQLite), go through knex as before: the fast path never changes
 * what is stored.
 */
import type { Knex } from "knex";
import { onSqliteConnection, sqliteBinding } from "./idle-sqlite";

/** Bound values a statement may carry: under SQLite's oldest limit (999), whatever it was built with. */
const VALUES_PER_STATEMENT = 900;
const MAX_ROWS_PER_STATEMENT = 200;
const MAX_KEPT_STATEMENTS = 1000;

export interface RowInsertOptions {
  /** `ignore`: rows whose key exists are skipped; `merge`: they take the new values (all columns but the key). */
  onConflict?: { columns: readonly string[]; action: "ignore" | "merge" };
  /** One column to return for each row inserted (or merged). */
  returning?: string;
}

type Row = Readonly<Record<string, unknown>>;

const statements = new Map<string, string>();

const quote = (identifier: string): string => `"${identifier.replace(/"/g, '""')}"`;

function statementText(table: string, columns: readonly string[], rows: number, opts: RowInsertOptions): string {
  const key = `${table}\u0000${columns.join("\u0000")}\u0000${rows}\u0000${opts.onConflict?.action ?? ""}\u0000${opts.onConflict?.columns.join("\u0000") ?? ""}\u0000${opts.returning ?? ""}`;
  let sql = statements.get(key);
  if (sql !== undefined) return sql;
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  sql = `insert into ${quote(table)} (${columns.map(quote).join(", ")}) values ${Array.from({ length: rows }, () => tuple).join(", ")}`;
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
  if (statements.size >= MAX_KEPT_STATEMENTS) statements.clear();
  statements.set(key, sql);
  return sql;
}

/** The columns every row has, in the first row's order; null when the rows differ or hold `undefined`. */
function uniformColumns(rows: readonly Row[]): string[] | null {
  const columns = Object.keys(rows[0]);
  for (const row of rows) {
    const keys = Object.keys(row);
    if (keys.length !== columns.length) return null;
    for (let i = 0; i < columns.length; i++) if (keys[i] !== columns[i] || row[columns[i]] === undefined) return null;
  }
  return columns;
}

/** What knex would have done with the same rows and options. */
async function throughKnex(db: Knex, table: string, rows: readonly Row[], opts: RowInsertOptions): Promise<Row[]> {
  const insert = db(table).insert([...rows]);
  const withConflict = opts.onConflict
    ? opts.onConflict.action === "ignore"
      ? insert.onConflict([...opts.onConflict.columns]).ignore()
      : insert.onConflict([...opts.onConflict.columns]).merge()
    : insert;
  if (!opts.returning) {
    await withConflict;
    return [];
  }
  return (await withConflict.returning(opts.returning)) as Row[];
}

/** The rows a raw statement returned, as both clients give them. */
const returnedRows = (result: unknown): Row[] => (Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] } | null)?.rows ?? []));

/**
 * Inserts the rows in their order, a few hundred per statement; returns the `returning` column
 * of each row written (empty without `returning`).
 */
export async function insertRows(db: Knex, table: string, given: readonly object[], opts: RowInsertOptions = {}): Promise<Row[]> {
  if (given.length === 0) return [];
  const rows = given as readonly Row[];
  const columns = uniformColumns(rows);
  if (!columns) return throughKnex(db, table, rows, opts);
  const perStatement = Math.max(1, Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(VALUES_PER_STATEMENT / Math.max(1, columns.length))));
  const returned: Row[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const part = rows.slice(start, start + perStatement);
    const sql = statementText(table, columns, part.length, opts);
    const bindings: unknown[] = [];
    for (const row of part) for (const c of columns) bindings.push(row[c]);
    // SQLite: the statement straight on the connection (prepared once, kept by the store);
    // knex's raw path would rewrite the text and check every binding again on each call.
    const direct = await onSqliteConnection(db, (conn) => {
      const statement = conn.prepare(sql);
      const values = bindings.map(sqliteBinding);
      return statement.reader ? statement.all(values) : (statement.run(values), []);
    });
    const result: unknown = direct ?? (await db.raw(sql, bindings as Knex.RawBinding[]));
    if (opts.returning) returned.push(...returnedRows(result));
  }
  return returned;
}
