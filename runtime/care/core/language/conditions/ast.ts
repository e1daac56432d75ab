/** The compiled form of an expression: what the parser builds and the evaluator walks once. */
import type { FunctionSpec } from "./functions";
import type { PathSegment } from "../../../../platform/core/data-paths";

export type CompareOp = "==" | "!=" | ">" | ">=" | "<" | "<=";

interface Span {
  /** 0-based offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
}

export interface LiteralNode extends Span {
  readonly kind: "literal";
  readonly value: null | boolean | number | string;
}

export interface PathNode extends Span {
  readonly kind: "path";
  readonly path: string;
  readonly segments: readonly PathSegment[];
}

/** A string literal holding `{{ }}` placeholders: rendered like a template when evaluated. */
export interface TemplateNode extends Span {
  readonly kind: "template";
  readonly parts: readonly (string | ExprNode)[];
}

export interface NotNode extends Span {
  readonly kind: "not";
  readonly operand: ExprNode;
}

export interface NegateNode extends Span {
  readonly kind: "negate";
  readonly operand: ExprNode;
}

/** `a and b and c` is one node; evaluation short-circuits like Python and yields an operand. */
export interface LogicalNode extends Span {
  readonly kind: "and" | "or";
  readonly operands: readonly ExprNode[];
}

/** `a < b < c` chains as in Python: `a < b and b < c`. */
export interface CompareNode extends Span {
  readonly kind: "compare";
  readonly first: ExprNode;
  readonly rest: readonly { readonly op: CompareOp; readonly operand: ExprNode }[];
}

/** `f(x, a)` and `x | f(a)` both become a call with `x` as the first argument. */
export interface CallNode extends Span {
  readonly kind: "call";
  /** As written (may be an alias such as `count`). */
  readonly name: string;
  readonly fn: FunctionSpec;
  readonly args: readonly ExprNode[];
  readonly piped: boolean;
}

export type ExprNode = LiteralNode | PathNode | TemplateNode | NotNode | NegateNode | LogicalNode | CompareNode | CallNode;

/** A path the expression reads, so save-time validation can warn about unknown keys. */
export interface PathReference {
  /** The dotted path as written, e.g. `person_detections.0.name`. */
  readonly path: string;
  /** Its first segment, the pipeline_data key (or step output) it depends on. */
  readonly root: string;
  readonly start: number;
  readonly end: number;
  /**
   * Inside a `filter(...)`/`map(...)` argument: the path is read from each list item first and
   * only then from pipeline_data, so an unknown root there is usually an item field, not a typo.
   */
  readonly itemScoped: boolean;
}
