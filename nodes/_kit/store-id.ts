/**
 * The one rule for row ids from outside (path, query, body): a whole number from 1 to
 * PostgreSQL's `integer` maximum, the type of every `increments` id (SQLite's rowids are wider,
 * so both stores answer alike). Beyond it PostgreSQL refuses the query itself, which was a 500
 * where SQLite said 404 (issue 51 item 6).
 */
import { z } from "zod";

export const MAX_STORE_ID = 2_147_483_647;

/** A path or query id as text: the id, or null when no row can have it (answered 404). */
export const storeIdOrNull = (raw: string): number | null => {
  if (!/^[1-9]\d{0,9}$/.test(raw)) return null;
  const id = Number(raw);
  return id <= MAX_STORE_ID ? id : null;
};

/** A row id in a JSON body: 422 naming the field outside the range. */
export const storeId = () => z.number().int().positive().max(MAX_STORE_ID, `must be a row id (at most ${MAX_STORE_ID})`);

/** A row id in a query parameter (text): 422 naming the parameter outside the range. */
export const storeIdQuery = () => z.coerce.number().int().positive().max(MAX_STORE_ID, `must be a row id (at most ${MAX_STORE_ID})`);
