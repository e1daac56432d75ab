/** Reading list filters and paging from the query string, with 422 on bad values. */
import type { Request } from "express";
import { z } from "zod";
import { parseInput } from "../core/validation";

export const boolQuery = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

export const pagingQuery = (defaultLimit: number, maxLimit: number) => ({
  limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
  offset: z.coerce.number().int().min(0).default(0),
});

/** Parse the query of `req` with the given fields; other parameters (like api_key) pass. */
export function parseQuery<S extends z.ZodRawShape>(req: Request, shape: S): z.output<z.ZodObject<S>> {
  const flat: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req.query)) flat[k] = Array.isArray(v) ? v[v.length - 1] : v;
  return parseInput(z.object(shape), flat, "query");
}
