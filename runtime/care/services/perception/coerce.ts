/**
 * Reading a service's answer leniently, as the original project's clients do: a field of the
 * wrong type takes its zero value, a list keeps only the items of the right shape.
 */
export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export const num = (v: unknown, fallback = 0): number => (typeof v === "number" && Number.isFinite(v) ? v : fallback);
export const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
export const bool = (v: unknown): boolean => v === true;
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
export const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === "number" && Number.isFinite(x)) : []);
export const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
/** A non-empty string or null (timestamps). */
export const text = (v: unknown): string | null => (typeof v === "string" && v ? v : null);
/** A confidence only when the service sent one. */
export const confidence = (v: Json): { confidence?: number } => (typeof v.confidence === "number" ? { confidence: v.confidence } : {});
