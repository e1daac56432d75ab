/**
 * Many rows in one statement, cut to a size both stores accept: knex writes a multi-row insert
 * for SQLite as one `select ... union all select ...`, and SQLite allows 500 terms in a compound
 * select (PostgreSQL's limit, 65,535 bound values, is further).
 */
export const ROWS_PER_STATEMENT = 200;

export function* chunks<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
