/**
 * What values mean in the condition language: truthiness, equality, ordering and text.
 * Values are JSON-shaped (pipeline_data is stored as JSON), so these handle null, booleans,
 * numbers, strings, arrays and plain objects; anything else is truthy and equal only to itself.
 */
import { isPlainObject } from "../../../../platform/core/data-paths";

/** Python truthiness: null, false, 0, NaN, "", [] and {} are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v === true) return true;
  if (typeof v === "number") return v !== 0 && !Number.isNaN(v);
  if (typeof v === "string") return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isPlainObject(v)) {
    for (const _ in v) return true;
    return false;
  }
  return true;
}

/**
 * Structural equality without coercion: `"5" == 5` and `true == 1` are false (a rule saying
 * `== 5` about a string is a mistake we would rather make visible than paper over).
 */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || a === null) return b === undefined || b === null;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
  }
  return false;
}

export type OrderOp = ">" | ">=" | "<" | "<=";

/** Ordering between two numbers or two strings; any other pairing is false, never an error. */
export function ordered(op: OrderOp, a: unknown, b: unknown): boolean {
  const bothNumbers = typeof a === "number" && typeof b === "number";
  if (!bothNumbers && !(typeof a === "string" && typeof b === "string")) return false;
  const x = a as number | string;
  const y = b as number | string;
  switch (op) {
    case ">":
      return x > y;
    case ">=":
      return x >= y;
    case "<":
      return x < y;
    case "<=":
      return x <= y;
  }
}

/** How a value reads inside a message: null renders empty, containers as JSON. */
export function toText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? "" : v.toISOString();
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    // Only a cyclic structure gets here; pipeline_data comes from JSON, so it never should.
    return "";
  }
}
