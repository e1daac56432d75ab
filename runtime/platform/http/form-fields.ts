/**
 * A multipart form's text fields as multer left them in `req.body`, checked as a JSON body is:
 * a repeated field counts once, as its last value (like query parameters); a field that is not
 * plain text is a 422 naming it; NUL and the other edge checks of `inputProblem` apply.
 */
import type { Request } from "express";
import { ValidationError } from "../core/errors";
import { inputProblem } from "./json-body";

export function formTextFields(req: Request): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
    const value = Array.isArray(v) ? v[v.length - 1] : v;
    if (typeof value === "string") fields[k] = value;
    else throw new ValidationError(`${k}: must be a plain text field`);
  }
  const problem = inputProblem(fields, "body");
  if (problem) throw new ValidationError(problem);
  return fields;
}
