/** Turns zod failures into one 422 message that names the field and says what is wrong. */
import { z } from "zod";
import { describeIssue } from "../../../nodes/_kit/issues";
import { storeIdOrNull } from "../../../nodes/_kit/store-id";
import { ValidationError } from "./errors";

export { describeIssue };

export const describeZodError = (error: z.ZodError): string => error.issues.map(describeIssue).join("; ");

/** Parse `input` with `schema`, or throw a ValidationError (422) naming each bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix?: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail = describeZodError(result.error);
  throw new ValidationError(prefix ? `${prefix}: ${detail}` : detail);
}

/** Path and query ids arrive as strings; this reads a row id in the store's range, or null (404). */
export const positiveIntOrNull = storeIdOrNull;
