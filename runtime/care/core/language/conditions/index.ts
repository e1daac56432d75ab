/**
 * The condition language: one grammar for validating a step when it is saved and for
 * evaluating it when it runs. See docs/conditions.md.
 */
import type { PathReference } from "./ast";
import { LruCache } from "./compile-cache";
import { ConditionSyntaxError, type SyntaxErrorInfo } from "./errors";
import { compileNode, Scope } from "./evaluate";
import { parseExpression } from "./parser";
import { truthy } from "./values";

export type { CompareOp, ExprNode, PathReference } from "./ast";
export { ConditionSyntaxError, caretDisplay, type SyntaxErrorInfo } from "./errors";
export { functionCatalog, lookupFunction, type FunctionSpec } from "./functions";
export { parseExpression, type ParsedExpression } from "./parser";
export { resolvePath } from "../../../../platform/core/data-paths";
export { toText, truthy } from "./values";

/** The shared dictionary steps read and write. */
export type PipelineData = Readonly<Record<string, unknown>>;

export interface CompiledCondition {
  readonly ok: true;
  readonly source: string;
  /** Truthiness of the expression's value; never throws for data reasons. */
  evaluate(data: PipelineData): boolean;
  /** The expression's value itself (e.g. for showing what a condition saw). */
  valueOf(data: PipelineData): unknown;
  /** Every path read, in source order; unknown roots are for the caller to warn about. */
  readonly references: readonly PathReference[];
  readonly functions: readonly string[];
}

export interface FailedCondition {
  readonly ok: false;
  readonly source: string;
  readonly error: SyntaxErrorInfo;
}

export type ConditionCompileResult = CompiledCondition | FailedCondition;

const CACHE_CAPACITY = 1000;
const cache = new LruCache<ConditionCompileResult>(CACHE_CAPACITY);

function compile(source: string): ConditionCompileResult {
  let parsed;
  try {
    parsed = parseExpression(source);
  } catch (e) {
    if (e instanceof ConditionSyntaxError) return Object.freeze({ ok: false, source, error: e.toInfo() });
    throw e;
  }
  const { ast, references, functions } = parsed;
  // An empty expression is false: a condition step left blank must not take the true branch.
  const run = ast ? compileNode(ast) : () => false;
  return Object.freeze({
    ok: true,
    source,
    evaluate: (data: PipelineData) => truthy(run(new Scope(data))),
    valueOf: (data: PipelineData) => run(new Scope(data)),
    references: Object.freeze(references),
    functions: Object.freeze(functions),
  });
}

/** Parses and compiles `source` once (cached by text); a syntax error is returned, not thrown. */
export function compileCondition(source: string): ConditionCompileResult {
  return cache.getOrCreate(source, compile);
}

/**
 * Evaluates `source` against `data`. A syntax error is a broken rule rather than a data
 * problem, so it throws ConditionSyntaxError (a 422) for the step to report.
 */
export function evaluateCondition(source: string, data: PipelineData): boolean {
  const compiled = compileCondition(source);
  if (compiled.ok) return compiled.evaluate(data);
  throw new ConditionSyntaxError(compiled.error.detail, compiled.error.position, source);
}
