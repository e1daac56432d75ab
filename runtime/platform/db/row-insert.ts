/**
 * Many rows into one table with plain `insert ... values (...), (...)` statements whose text is
 * built once per shape (table, columns, row count, conflict rule) and kept. knex's builder
 * writes a SQLite multi-row insert as `select ? as "col" ... union all select ...`, quoting
 * every column of every row again; on tracking's path (2,000 events a second, six inserts a
 * batch) that was the largest source of garbage in the process and a tenth of its CPU
 * (issue 26). On SQLite these run prepared on the connection; PostgreSQL gets one array per
 * column instead (pg-array-insert: a long VALUES list is slow for it to plan). Both take the
 * same `on conflict` and `returning` clauses.
 *
 * Rows whose keys differ, or that hold `undefined` (which knex writes as the column's default
 * on PostgreSQL and as NULL on SQLite), go through knex as before: the fast path never changes
 * what is stored.
 */
import type { Knex } from "knex";
import { onSqliteConnection, sqliteBinding } from "./idle-sqlite";
import { conflictAndReturning, isPostgres, quote, uniformColumns, type RowInsertOptions, type SqlStatement } from "./insert-sql";
import { pgArrayInsert } from "./pg-array-insert";

/** Bound values a statement may carry: under SQLite's oldest limit (999), whatever it was built with. */
const VALUES_PER_STATEMENT = 900;
const MAX_ROWS_PER_STATEMENT = 200;
const MAX_KEPT_STATEMENTS = 1000;

type Row = Readonly<Record<string, unknown>>;

const statements = new Map<string, string>();

function statementText(table: string, columns: readonly string[], rows: number, opts: RowInsertOptions): string {
  const key = `${table}\u0000${columns.join("\u0000")}\u0000${rows}\u0000${opts.onConflict?.action ?? ""}\u0000${opts.onConflict?.columns.join("\u0000") ?? ""}\u0000${opts.returning ?? ""}`;
  let sql = statements.get(key);
  if (sql !== undefined) return sql;
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  sql =
    `insert into ${quote(table)} (${columns.map(quote).join(", ")}) values ${Array.from({ length: rows }, () => tuple).join(", ")}` +
    conflictAndReturning(columns, opts);
  if (statements.size >= MAX_KEPT_STATEMENTS) statements.clear();
  statements.set(key, sql);
  return sql;
}

/** The rows a raw statement returned, as both clients give them. */
const returnedRows = (result: unknown): Row[] => (Array.isArray(result) ? (result as Row[]) : ((result as { rows?: Row[] } | null)?.rows ?? []));

/**
 * The statements that insert the rows in their order, a few hundred per statement; null when
 * the rows differ in their keys or hold `undefined` (knex's builder writes those).
 */
function insertStatements(table: string, given: readonly object[], opts: RowInsertOptions = {}): SqlStatement[] | null {
  if (given.length === 0) return [];
  const rows = given as readonly Row[];
  const columns = uniformColumns(rows);
  if (!columns) return null;
  const perStatement = Math.max(1, Math.min(MAX_ROWS_PER_STATEMENT, Math.floor(VALUES_PER_STATEMENT / Math.max(1, columns.length))));
  const out: SqlStatement[] = [];
  for (let start = 0; start < rows.length; start += perStatement) {
    const part = rows.slice(start, start + perStatement);
    const bindings: unknown[] = [];
    for (const row of part) for (const c of columns) bindings.push(row[c]);
    out.push({ sql: statementText(table, columns, part.length, opts), bindings });
  }
  return out;
}

/** The same insert as knex's builder writes it, as text and bindings (for rows the fast forms leave to knex). */
export function knexInsertStatement(db: Knex, table: string, rows: readonly object[], opts: RowInsertOptions = {}): SqlStatement {
  const insert = insertBuilder(db, table, rows as readonly Row[], opts);
  const { sql, bindings } = (opts.returning ? insert.returning(opts.returning) : insert).toSQL();
  return { sql, bindings: [...bindings] };
}

function insertBuilder(db: Knex, table: string, rows: readonly Row[], opts: RowInsertOptions): Knex.QueryBuilder {
  const insert = db(table).insert([...rows]);
  if (!opts.onConflict) return insert;
  const conflict = insert.onConflict([...opts.onConflict.columns]);
  return opts.onConflict.action === "ignore" ? conflict.ignore() : conflict.merge();
}

/** What knex would have done with the same rows and options. */
async function throughKnex(db: Knex, table: string, rows: readonly Row[], opts: RowInsertOptions): Promise<Row[]> {
  const insert = insertBuilder(db, table, rows, opts);
  if (!opts.returning) {
    await insert;
    return [];
  }
  return (await insert.returning(opts.returning)) as Row[];
}

/**
 * Inserts the rows in their order (SQLite: a few hundred per statement; PostgreSQL: one
 * statement); returns the `returning` column of each row written (empty without `returning`).
 */
export async function insertRows(db: Knex, table: string, given: readonly object[], opts: RowInsertOptions = {}): Promise<Row[]> {
  if (given.length === 0) return [];
  if (isPostgres(db)) {
    const one = await pgArrayInsert(db, table, given, opts);
    if (!one) return throughKnex(db, table, given as readonly Row[], opts);
    return returnedRows(await db.raw(one.sql, one.bindings as Knex.RawBinding[]));
  }
  const statements = insertStatements(table, given, opts);
  if (!statements) return throughKnex(db, table, given as readonly Row[], opts);
  const returned: Row[] = [];
  for (const { sql, bindings } of statements) {
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
