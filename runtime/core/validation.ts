/** Turns zod failures into one 422 message that names the field and says what is wrong. */
import { z } from "zod";
import { ValidationError } from "./errors";

const pathText = (path: readonly PropertyKey[]): string =>
  path.length === 0 ? "body" : path.map((p) => String(p)).join(".");

export const describeIssue = (issue: z.core.$ZodIssue): string => {
  if (issue.code === "unrecognized_keys") {
    const where = issue.path.length ? `${pathText(issue.path)}.` : "";
    return issue.keys.map((k) => `${where}${k}: unknown field`).join("; ");
  }
  return `${pathText(issue.path)}: ${issue.message}`;
};

export const describeZodError = (error: z.ZodError): string => error.issues.map(describeIssue).join("; ");

/** Parse `input` with `schema`, or throw a ValidationError (422) naming each bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail = describeZodError(result.error);
  throw new ValidationError(prefix ? `${prefix}: ${detail}` : detail);
}

/** Path and query ids arrive as strings; this reads a positive integer id or answers 404. */
export const positiveIntOrNull = (raw: string): number | null => (/^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : null);
