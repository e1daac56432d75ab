/**
 * The one table of functions and pipes. The parser checks names and argument counts against
 * it at save time; the evaluator calls the same entries at run time. `f(x, a)` and `x | f(a)`
 * are the same call: a pipe passes its left side as the first argument.
 */
import { isPlainObject } from "../../../../platform/core/data-paths";
import { equal, toText, truthy } from "./values";

interface FunctionBase {
  /** Canonical name; aliases map to the same entry. */
  readonly name: string;
  readonly aliases: readonly string[];
  /** Argument counts include the subject (the left side of a pipe). */
  readonly minArgs: number;
  readonly maxArgs: number;
  /** How it is called, for docs and editor help. */
  readonly signature: string;
  readonly summary: string;
}

/** A function of already-evaluated arguments. */
export interface ValueFunction extends FunctionBase {
  readonly kind: "value";
  readonly apply: (args: readonly unknown[]) => unknown;
}

/**
 * A function whose second argument is an expression evaluated once per list item, with the
 * item's fields in scope (filter, map).
 */
export interface PerItemFunction extends FunctionBase {
  readonly kind: "per-item";
  readonly apply: (subject: unknown, each: (item: unknown) => unknown) => unknown;
}

export type FunctionSpec = ValueFunction | PerItemFunction;

const isNil = (v: unknown): v is null | undefined => v === null || v === undefined;

function size(v: unknown): number | null {
  if (Array.isArray(v) || typeof v === "string") return v.length;
  if (isPlainObject(v)) return Object.keys(v).length;
  // "How many" of nothing is 0, so `missing | filter(...) | length > 0` is simply false.
  return isNil(v) ? 0 : null;
}

function contains(haystack: unknown, needle: unknown, foldCase: boolean): boolean {
  const fold = (s: string) => (foldCase ? s.toLowerCase() : s);
  if (typeof haystack === "string") return typeof needle === "string" && fold(haystack).includes(fold(needle));
  if (Array.isArray(haystack)) {
    if (foldCase && typeof needle === "string") {
      const n = needle.toLowerCase();
      return haystack.some((item) => (typeof item === "string" ? item.toLowerCase() === n : false));
    }
    return haystack.some((item) => equal(item, needle));
  }
  // On an object, membership means "has this key", as Python's `in` on a dict.
  if (isPlainObject(haystack) && typeof needle === "string") {
    if (!foldCase) return Object.prototype.hasOwnProperty.call(haystack, needle);
    const n = needle.toLowerCase();
    return Object.keys(haystack).some((k) => k.toLowerCase() === n);
  }
  return false;
}

/** min/max of a list holding only numbers or only strings; null otherwise. */
function extreme(list: unknown, pickFirst: (a: number | string, b: number | string) => boolean): unknown {
  if (!Array.isArray(list) || list.length === 0) return null;
  const kind = typeof list[0];
  if (kind !== "number" && kind !== "string") return null;
  let best = list[0] as number | string;
  for (const v of list) {
    if (typeof v !== kind) return null;
    if (pickFirst(v as number | string, best)) best = v as number | string;
  }
  return best;
}

function roundTo(x: unknown, digits: unknown): unknown {
  if (typeof x !== "number") return x;
  const d = typeof digits === "number" && Number.isInteger(digits) ? Math.max(0, Math.min(10, digits)) : 0;
  const f = 10 ** d;
  // Half away from zero, which is what a person reading "2.5 minutes" expects.
  return (Math.sign(x) * Math.round(Math.abs(x) * f)) / f;
}

function toNumber(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string" || v.trim() === "") return null;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : null;
}

const value = (
  name: string,
  signature: string,
  arity: [number, number],
  summary: string,
  apply: (args: readonly unknown[]) => unknown,
  aliases: readonly string[] = [],
): ValueFunction => ({ kind: "value", name, aliases, minArgs: arity[0], maxArgs: arity[1], signature, summary, apply });

const perItem = (
  name: string,
  signature: string,
  summary: string,
  apply: (subject: unknown, each: (item: unknown) => unknown) => unknown,
): PerItemFunction => ({ kind: "per-item", name, aliases: [], minArgs: 2, maxArgs: 2, signature, summary, apply });

const SPECS: readonly FunctionSpec[] = [
  value("exists", "exists(x)", [1, 1], "true when x is present and not null", ([x]) => !isNil(x)),
  value("contains", "contains(haystack, needle)", [2, 2], "list membership, substring, or object key", ([h, n]) => contains(h, n, false)),
  value("icontains", "icontains(haystack, needle)", [2, 2], "contains, ignoring letter case", ([h, n]) => contains(h, n, true)),
  value("lower", "lower(s)", [1, 1], "lower-cased string; other values unchanged", ([s]) => (typeof s === "string" ? s.toLowerCase() : s)),
  value("upper", "upper(s)", [1, 1], "upper-cased string; other values unchanged", ([s]) => (typeof s === "string" ? s.toUpperCase() : s)),
  value("length", "length(x)", [1, 1], "items in a list, characters in a string, keys in an object; 0 for null", ([x]) => size(x), ["len", "count"]),
  value("number", "number(x)", [1, 1], "a number, or a numeric string as a number; null otherwise", ([x]) => toNumber(x)),
  value("first", "first(list)", [1, 1], "first item of a list, or null", ([l]) => (Array.isArray(l) && l.length > 0 ? l[0] : null)),
  value("last", "last(list)", [1, 1], "last item of a list, or null", ([l]) => (Array.isArray(l) && l.length > 0 ? l[l.length - 1] : null)),
  value("sum", "sum(list)", [1, 1], "sum of the numbers in a list (other items skipped); 0 for null", ([l]) => {
    if (typeof l === "number") return l;
    if (isNil(l)) return 0;
    if (!Array.isArray(l)) return null;
    let total = 0;
    for (const v of l) if (typeof v === "number") total += v;
    return total;
  }),
  value("any", "any(list)", [1, 1], "true when some item is truthy; null for a non-list", ([l]) => (Array.isArray(l) ? l.some(truthy) : null)),
  value("all", "all(list)", [1, 1], "true when every item is truthy (true for []); null for a non-list", ([l]) => (Array.isArray(l) ? l.every(truthy) : null)),
  value("min", "min(list)", [1, 1], "smallest of a list of numbers or of strings, else null", ([l]) => extreme(l, (a, b) => a < b)),
  value("max", "max(list)", [1, 1], "largest of a list of numbers or of strings, else null", ([l]) => extreme(l, (a, b) => a > b)),
  value("default", "default(x, fallback)", [2, 2], "fallback when x is null or an empty string", ([x, fb]) => (isNil(x) || x === "" ? fb : x)),
  value("join", "join(list, separator = ', ')", [1, 2], "list items as text joined by separator", ([l, sep]) =>
    Array.isArray(l) ? l.map(toText).join(typeof sep === "string" ? sep : ", ") : toText(l),
  ),
  value("round", "round(x, digits = 0)", [1, 2], "number rounded half away from zero; other values unchanged", ([x, d]) => roundTo(x, d)),
  perItem("filter", "filter(list, condition)", "items for which condition, read with the item's fields in scope, is true", (l, each) =>
    Array.isArray(l) ? l.filter((item) => truthy(each(item))) : [],
  ),
  perItem("map", "map(list, expression)", "expression evaluated for each item, with the item's fields in scope", (l, each) =>
    Array.isArray(l) ? l.map((item) => each(item) ?? null) : [],
  ),
];

const BY_NAME: ReadonlyMap<string, FunctionSpec> = new Map(SPECS.flatMap((spec) => [spec.name, ...spec.aliases].map((n): [string, FunctionSpec] => [n, spec])));

/** The entry for a name or alias, or undefined when the language has no such function. */
export const lookupFunction = (name: string): FunctionSpec | undefined => BY_NAME.get(name);

/** Every function once, in table order (docs, editor autocomplete). */
export const functionCatalog = (): readonly FunctionSpec[] => SPECS;

/** Every callable name including aliases, for "did you mean" on an unknown function. */
export const functionNames = (): string[] => [...BY_NAME.keys()];
