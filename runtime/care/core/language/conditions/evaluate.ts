/**
 * Turns a parsed expression into a tree of closures once, so evaluating it a million times
 * does no dispatch on node kinds. Nothing here throws for data reasons: a missing path is
 * null, a type mismatch compares false, and every function accepts every value.
 */
import type { CompareOp, ExprNode } from "./ast";
import { isPlainObject, ownProperty, resolveSegments } from "../../../../platform/core/data-paths";
import { equal, ordered, toText, truthy } from "./values";

/** Inside filter()/map(), this name means the current item itself (for lists of strings). */
export const ITEM_NAME = "item";

/**
 * Where paths are read. The outermost scope holds pipeline_data; a filter/map creates a child
 * scope per list item whose fields shadow pipeline_data keys of the same name.
 */
export class Scope {
  constructor(
    readonly data: unknown,
    readonly item: unknown = undefined,
    readonly parent: Scope | null = null,
  ) {}
}

export type Evaluator = (scope: Scope) => unknown;

const hasOwn = Object.prototype.hasOwnProperty;

function lookupRoot(scope: Scope, key: string): unknown {
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    if (s.parent === null) return ownProperty(s.data, key);
    const item = s.item;
    if (isPlainObject(item) && hasOwn.call(item, key)) return item[key];
    if (key === ITEM_NAME) return item;
  }
  return undefined;
}

type Comparator = (a: unknown, b: unknown) => boolean;

const COMPARATORS: Readonly<Record<CompareOp, Comparator>> = {
  "==": equal,
  "!=": (a, b) => !equal(a, b),
  ">": (a, b) => ordered(">", a, b),
  ">=": (a, b) => ordered(">=", a, b),
  "<": (a, b) => ordered("<", a, b),
  "<=": (a, b) => ordered("<=", a, b),
};

/** The closure for the commonest rule shape, `path > 3`: no generic comparison on the hot path. */
function numberComparator(op: CompareOp, k: number): (a: unknown) => boolean {
  switch (op) {
    case ">":
      return (a) => typeof a === "number" && a > k;
    case ">=":
      return (a) => typeof a === "number" && a >= k;
    case "<":
      return (a) => typeof a === "number" && a < k;
    case "<=":
      return (a) => typeof a === "number" && a <= k;
    case "==":
      return (a) => typeof a === "number" && a === k;
    case "!=":
      return (a) => !(typeof a === "number" && a === k);
  }
}

export function compileNode(node: ExprNode): Evaluator {
  switch (node.kind) {
    case "literal": {
      const v = node.value;
      return () => v;
    }
    case "path": {
      const segments = node.segments;
      const root = segments[0].key;
      if (segments.length === 1) {
        return (s) => {
          const v = lookupRoot(s, root);
          return v === undefined ? null : v;
        };
      }
      return (s) => resolveSegments(lookupRoot(s, root), segments, 1);
    }
    case "template": {
      const parts = node.parts.map((p) => (typeof p === "string" ? p : compileNode(p)));
      return (s) => {
        let out = "";
        for (const p of parts) out += typeof p === "string" ? p : toText(p(s));
        return out;
      };
    }
    case "not": {
      const operand = compileNode(node.operand);
      return (s) => !truthy(operand(s));
    }
    case "negate": {
      const operand = compileNode(node.operand);
      return (s) => {
        const v = operand(s);
        return typeof v === "number" ? -v : null;
      };
    }
    case "and":
    case "or":
      return compileLogical(node.kind, node.operands.map(compileNode));
    case "compare":
      return compileCompare(node);
    case "call":
      return compileCall(node);
  }
}

/** Python semantics: yields the deciding operand, so `{{ nickname or name }}` renders a name. */
function compileLogical(kind: "and" | "or", operands: Evaluator[]): Evaluator {
  const stopWhen = kind === "or";
  return (s) => {
    let v: unknown = null;
    for (const operand of operands) {
      v = operand(s);
      if (truthy(v) === stopWhen) return v;
    }
    return v;
  };
}

function compileCompare(node: ExprNode & { kind: "compare" }): Evaluator {
  const first = compileNode(node.first);
  if (node.rest.length === 1) {
    const { op, operand } = node.rest[0];
    if (operand.kind === "literal" && typeof operand.value === "number") {
      const test = numberComparator(op, operand.value);
      return (s) => test(first(s));
    }
    const cmp = COMPARATORS[op];
    const right = compileNode(operand);
    return (s) => cmp(first(s), right(s));
  }
  const links = node.rest.map(({ op, operand }) => ({ cmp: COMPARATORS[op], next: compileNode(operand) }));
  return (s) => {
    let left = first(s);
    for (const { cmp, next } of links) {
      const right = next(s);
      if (!cmp(left, right)) return false;
      left = right;
    }
    return true;
  };
}

function compileCall(node: ExprNode & { kind: "call" }): Evaluator {
  const fn = node.fn;
  const args = node.args.map(compileNode);
  if (fn.kind === "per-item") {
    const [subject, body] = args;
    return (s) => fn.apply(subject(s), (item) => body(new Scope(undefined, item, s)));
  }
  const apply = fn.apply;
  if (args.length === 1) {
    const only = args[0];
    return (s) => apply([only(s)]);
  }
  return (s) => apply(args.map((a) => a(s)));
}
