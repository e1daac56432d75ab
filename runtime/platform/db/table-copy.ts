/**
 * Copies rows of a table from one store into another with the same schema (a rehearsal's
 * scratch store is SQLite whatever the live store is). Only a table's owner calls this, with
 * its own table's name. Values PostgreSQL hands back as booleans, dates or parsed JSON are
 * written in the form SQLite keeps them.
 */
import type { Knex } from "knex";

const ROWS_PER_INSERT = 50;

function storable(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === "object" && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/** Copies the rows `narrow` selects (all when absent); returns how many. */
export async function copyRows(from: Knex, to: Knex, table: string, narrow?: (q: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<number> {
  const query = from(table).select("*");
  const rows = (await (narrow ? narrow(query) : query)) as Array<Record<string, unknown>>;
  const clean = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, storable(v)])));
  for (let i = 0; i < clean.length; i += ROWS_PER_INSERT) await to(table).insert(clean.slice(i, i + ROWS_PER_INSERT));
  return clean.length;
}
