/**
 * PostgreSQL: many rows inserted as one array per column, unnested, in their order:
 *
 *   insert into "t" ("a", "b") select c0, c1 from unnest(?::varchar[], ?::float4[])
 *     with ordinality as u(c0, c1, n) order by n
 *
 * A `values` list is parsed and planned row by row, on every call: a tracking batch of a few
 * hundred rows took PostgreSQL 30 to 90 ms to plan (issue 26, measured with
 * `log_min_duration_statement`). This statement has one binding per column whatever the number
 * of rows, so its text, its parse and its plan stay small. The column types come from the
 * catalogue once per table and store.
 */
import type { Knex } from "knex";
import { conflictAndReturning, quote, uniformColumns, type RowInsertOptions, type SqlStatement } from "./insert-sql";

const typesByStore = new WeakMap<object, Map<string, Promise<Map<string, string>>>>();

/** Column name → type name (`varchar`, `float4`, `jsonb`, ...), read from the catalogue once. */
function columnTypes(db: Knex, table: string): Promise<Map<string, string>> {
  // Transactions share their store's client config: one cache per store.
  const key = db.client.config as object;
  let tables = typesByStore.get(key);
  if (!tables) typesByStore.set(key, (tables = new Map()));
  let types = tables.get(table);
  if (!types) {
    types = db
      .raw("select column_name, udt_name from information_schema.columns where table_schema = current_schema() and table_name = ?", [table])
      .then((r: { rows: Array<{ column_name: string; udt_name: string }> }) => new Map(r.rows.map((c) => [c.column_name, c.udt_name])));
    types.catch(() => tables.delete(table));
    tables.set(table, types);
  }
  return types;
}

/** What an array element may hold unquoted: no space, quote, backslash, comma or brace. */
const BARE = /^[\w.:+@-]+$/;

/**
 * One element of an array literal: bare when nothing in it needs quotes (most values: ids,
 * times, numbers, so no new string is made for them at 2,000 tracking events a second), else
 * quoted with `"` and `\` escaped; NULL unquoted, and a text that reads NULL quoted.
 */
function element(v: string | number | boolean | bigint | null): string {
  if (v === null) return "NULL";
  const text = typeof v === "string" ? v : String(v);
  if (BARE.test(text) && !(text.length === 4 && text.toLowerCase() === "null")) return text;
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Statement texts by column types (one map per store and table) and shape; null: a column's type is not a plain one. */
const texts = new WeakMap<Map<string, string>, Map<string, string | null>>();

function statementText(types: Map<string, string>, table: string, columns: readonly string[], opts: RowInsertOptions): string | null {
  let byShape = texts.get(types);
  if (!byShape) texts.set(types, (byShape = new Map()));
  const key = `${columns.join("\u0000")}\u0000${opts.onConflict?.action ?? ""}\u0000${opts.onConflict?.columns.join("\u0000") ?? ""}\u0000${opts.returning ?? ""}`;
  let sql = byShape.get(key);
  if (sql !== undefined) return sql;
  sql = null;
  const casts: string[] = [];
  for (const c of columns) {
    const type = types.get(c);
    if (!type || !/^[a-z][a-z0-9_]*$/.test(type)) break;
    casts.push(`?::${type}[]`);
  }
  if (casts.length === columns.length) {
    const names = columns.map((_, i) => `c${i}`);
    sql =
      `insert into ${quote(table)} (${columns.map(quote).join(", ")}) select ${names.join(", ")} from unnest(${casts.join(", ")})` +
      ` with ordinality as u(${names.join(", ")}, n) order by n` +
      conflictAndReturning(columns, opts);
  }
  if (byShape.size >= 1000) byShape.clear();
  byShape.set(key, sql);
  return sql;
}

/** Values written as their text; others (dates, buffers, objects) are left to knex and the driver, which convert them their own way. */
const plain = (v: unknown): v is string | number | boolean | bigint | null =>
  v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean" || typeof v === "bigint";

/**
 * The statement that inserts the rows (with the same conflict rule and `returning` as
 * insertRows); null when the rows differ in their keys, hold `undefined` or a value that is not
 * a string, number, boolean or null, or a column's type is not a plain one (an array column):
 * knex's builder writes those.
 */
export async function pgArrayInsert(db: Knex, table: string, given: readonly object[], opts: RowInsertOptions = {}): Promise<SqlStatement | null> {
  const rows = given as readonly Readonly<Record<string, unknown>>[];
  const columns = rows.length ? uniformColumns(rows) : null;
  if (!columns) return null;
  const sql = statementText(await columnTypes(db, table), table, columns, opts);
  if (sql === null) return null;
  const bindings: string[] = [];
  for (const c of columns) {
    const parts: string[] = [];
    for (const r of rows) {
      const v = r[c];
      if (!plain(v)) return null;
      parts.push(element(v));
    }
    bindings.push(`{${parts.join(",")}}`);
  }
  return { sql, bindings };
}
