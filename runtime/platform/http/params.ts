/** Path ids: a malformed id can name no resource, so it answers 404 like an unknown one. */
import type { Request } from "express";
import { NotFoundError } from "../core/errors";
import { positiveIntOrNull } from "../core/validation";

export function intParam(req: Request, name: string, what: string): number {
  const raw = req.params[name] ?? "";
  const id = positiveIntOrNull(raw);
  if (id === null) throw new NotFoundError(`${what} ${raw} not found`);
  return id;
}
