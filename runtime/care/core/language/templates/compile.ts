/**
 * Parses a template once: literal text plus `{{ expression }}` placeholders, each placeholder
 * parsed by the condition grammar (so `{{ name | upper }}` and `{{ nickname or name }}` work).
 */
import type { PathReference } from "../conditions/ast";
import { LruCache } from "../conditions/compile-cache";
import { ConditionSyntaxError, type SyntaxErrorInfo } from "../conditions/errors";
import { compileNode, type Evaluator } from "../conditions/evaluate";
import { parseExpression } from "../conditions/parser";
import { scanPlaceholders } from "../conditions/placeholders";

export interface CompiledTemplate {
  /** Literal text and placeholder evaluators, in order. A broken placeholder is left out. */
  readonly parts: readonly (string | Evaluator)[];
  readonly references: readonly PathReference[];
  readonly errors: readonly SyntaxErrorInfo[];
}

const CACHE_CAPACITY = 1000;
const cache = new LruCache<CompiledTemplate>(CACHE_CAPACITY);

function errorAt(text: string, detail: string, position: number): SyntaxErrorInfo {
  return new ConditionSyntaxError(detail, position, text).toInfo();
}

function compile(text: string): CompiledTemplate {
  const parts: (string | Evaluator)[] = [];
  const references: PathReference[] = [];
  const errors: SyntaxErrorInfo[] = [];
  const scan = scanPlaceholders(text);
  for (const piece of scan.pieces) {
    if (piece.kind === "text") {
      parts.push(piece.text);
      continue;
    }
    try {
      const parsed = parseExpression(text, piece.innerStart, piece.innerEnd);
      references.push(...parsed.references);
      if (parsed.ast) parts.push(compileNode(parsed.ast));
      else errors.push(errorAt(text, "empty placeholder '{{ }}'", piece.start));
    } catch (e) {
      // The placeholder renders empty; save-time validation shows the error to the caregiver.
      if (e instanceof ConditionSyntaxError) errors.push(e.toInfo());
      else throw e;
    }
  }
  if (scan.unclosedAt !== null) errors.push(errorAt(text, "unclosed '{{'", scan.unclosedAt));
  return Object.freeze({ parts: Object.freeze(parts), references: Object.freeze(references), errors: Object.freeze(errors) });
}

/** The compiled template for `text`, parsed once per distinct text (bounded LRU). */
export function compileTemplate(text: string): CompiledTemplate {
  return cache.getOrCreate(text, compile);
}
