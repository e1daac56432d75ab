/**
 * Recursive-descent parser for the condition language; the grammar (EBNF) is in
 * docs/conditions.md. Precedence is Python's: or < and < not < comparison < pipe < unary minus.
 */
import { suggest, didYouMean } from "../suggest";
import type { CompareOp, ExprNode, PathReference } from "./ast";
import { ConditionSyntaxError } from "./errors";
import { functionNames, lookupFunction, type FunctionSpec } from "./functions";
import { tokenize, type Keyword, type Operator, type Token } from "./lexer";
import { parsePathSegments } from "../../../../platform/core/data-paths";
import { scanPlaceholders } from "./placeholders";

export interface ParsedExpression {
  /** null for an empty (all-whitespace) expression, which evaluates to false. */
  readonly ast: ExprNode | null;
  readonly references: readonly PathReference[];
  /** Function and pipe names used, as written, each once. */
  readonly functions: readonly string[];
}

type PathToken = Extract<Token, { kind: "path" }>;

const COMPARE_OPS: ReadonlySet<string> = new Set<CompareOp>(["==", "!=", ">", ">=", "<", "<="]);

/** What the parse collects besides the tree; shared with nested template strings. */
interface Collected {
  readonly references: PathReference[];
  readonly functions: Set<string>;
}

class Parser {
  private readonly tokens: Token[];
  private pos = 0;

  constructor(
    private readonly source: string,
    from: number,
    to: number,
    private readonly collected: Collected,
    /** > 0 while parsing a filter/map argument, whose paths read list items first. */
    private itemDepth: number,
  ) {
    this.tokens = tokenize(source, from, to);
  }

  parseAll(): ExprNode | null {
    if (this.peek().kind === "eof") return null;
    const node = this.parseOr();
    const next = this.peek();
    if (next.kind !== "eof") this.unexpected(next);
    return node;
  }

  private parseOr(): ExprNode {
    return this.parseLogical("or", () => this.parseAnd());
  }

  private parseAnd(): ExprNode {
    return this.parseLogical("and", () => this.parseNot());
  }

  private parseLogical(kind: "and" | "or", operand: () => ExprNode): ExprNode {
    const first = operand();
    if (!this.atKeyword(kind)) return first;
    const operands = [first];
    while (this.atKeyword(kind)) {
      this.pos++;
      operands.push(operand());
    }
    return { kind, operands, start: first.start, end: operands[operands.length - 1].end };
  }

  private parseNot(): ExprNode {
    const t = this.peek();
    if (t.kind === "keyword" && t.value === "not") {
      this.pos++;
      const operand = this.parseNot();
      return { kind: "not", operand, start: t.start, end: operand.end };
    }
    return this.parseComparison();
  }

  private parseComparison(): ExprNode {
    const first = this.parsePipe();
    const rest: { op: CompareOp; operand: ExprNode }[] = [];
    for (let t = this.peek(); t.kind === "op" && COMPARE_OPS.has(t.value); t = this.peek()) {
      this.pos++;
      rest.push({ op: t.value as CompareOp, operand: this.parsePipe() });
    }
    if (rest.length === 0) return first;
    return { kind: "compare", first, rest, start: first.start, end: rest[rest.length - 1].operand.end };
  }

  private parsePipe(): ExprNode {
    let left = this.parseUnary();
    while (this.atOp("|")) {
      this.pos++;
      const nameToken = this.peek();
      if (nameToken.kind !== "path" || nameToken.value.includes(".")) {
        this.fail(`expected a function name after '|' but found ${describe(nameToken)}`, nameToken.start);
      }
      this.pos++;
      const fn = this.functionFor(nameToken.value, nameToken.start);
      const args = this.atOp("(") ? this.parseArgs(fn, 1) : { nodes: [], end: nameToken.end };
      left = this.makeCall(nameToken, fn, [left, ...args.nodes], true, args.end, left.start);
    }
    return left;
  }

  private parseUnary(): ExprNode {
    const t = this.peek();
    if (!(t.kind === "op" && t.value === "-")) return this.parsePrimary();
    this.pos++;
    const operand = this.parseUnary();
    // Fold `-5` into a literal so the common case costs nothing at run time.
    if (operand.kind === "literal" && typeof operand.value === "number") {
      return { kind: "literal", value: -operand.value, start: t.start, end: operand.end };
    }
    return { kind: "negate", operand, start: t.start, end: operand.end };
  }

  private parsePrimary(): ExprNode {
    const t = this.peek();
    this.pos++;
    switch (t.kind) {
      case "number":
        return { kind: "literal", value: t.value, start: t.start, end: t.end };
      case "string":
        return t.value.includes("{{") ? this.parseTemplateString(t) : { kind: "literal", value: t.value, start: t.start, end: t.end };
      case "keyword":
        return this.keywordLiteral(t);
      case "path":
        return this.atOp("(") ? this.parseCall(t) : this.pathNode(t);
      case "op":
        if (t.value === "(") {
          const inner = this.parseOr();
          this.expect(")", t.start);
          return inner;
        }
        if (t.value === "{{") return this.parseUnwrapped(t);
        return this.unexpected(t);
      case "eof":
        return this.unexpected(t);
    }
  }

  /** `{{ path }}` inside an expression means just `path`: rules written as templates still work. */
  private parseUnwrapped(open: Token): ExprNode {
    if (this.atOp("}}")) this.fail("empty '{{ }}'", open.start);
    const inner = this.parseOr();
    this.expect("}}", open.start);
    return inner;
  }

  private keywordLiteral(t: Extract<Token, { kind: "keyword" }>): ExprNode {
    const literal = (value: boolean | null): ExprNode => ({ kind: "literal", value, start: t.start, end: t.end });
    switch (t.value) {
      case "true":
        return literal(true);
      case "false":
        return literal(false);
      case "null":
        return literal(null);
      default:
        return this.unexpected(t);
    }
  }

  private pathNode(t: PathToken): ExprNode {
    const path = t.value;
    this.collected.references.push({
      path,
      root: path.split(".", 1)[0],
      start: t.start,
      end: t.end,
      itemScoped: this.itemDepth > 0,
    });
    return { kind: "path", path, segments: parsePathSegments(path), start: t.start, end: t.end };
  }

  private parseCall(nameToken: PathToken): ExprNode {
    const name = nameToken.value;
    if (name.includes(".")) this.fail(`'${name}' is a path and cannot be called`, nameToken.start);
    const fn = this.functionFor(name, nameToken.start);
    const args = this.parseArgs(fn, 0);
    return this.makeCall(nameToken, fn, args.nodes, false, args.end, nameToken.start);
  }

  /** `(a, b)` after a function name; `firstIndex` is 1 in a pipe, where the subject is argument 0. */
  private parseArgs(fn: FunctionSpec, firstIndex: number): { nodes: ExprNode[]; end: number } {
    const open = this.peek();
    this.expect("(", open.start);
    const nodes: ExprNode[] = [];
    while (!this.atOp(")")) {
      if (nodes.length > 0) this.expect(this.atOp(",") ? "," : ")", open.start);
      const perItem = fn.kind === "per-item" && firstIndex + nodes.length === 1;
      if (perItem) this.itemDepth++;
      nodes.push(this.parseOr());
      if (perItem) this.itemDepth--;
    }
    const close = this.expect(")", open.start);
    return { nodes, end: close.end };
  }

  private makeCall(nameToken: PathToken, fn: FunctionSpec, args: ExprNode[], piped: boolean, end: number, start: number): ExprNode {
    const name = nameToken.value;
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const shift = piped ? 1 : 0; // a pipe's subject is not written inside the parentheses
      const [min, max] = [fn.minArgs - shift, fn.maxArgs - shift];
      const wanted = min === max ? `${min}` : `${min} to ${max}`;
      const form = piped ? `'| ${name}'` : `${name}()`;
      this.fail(`${form} takes ${wanted} argument${wanted === "1" ? "" : "s"}, got ${args.length - shift}`, nameToken.start);
    }
    this.collected.functions.add(name);
    return { kind: "call", name, fn, args, piped, start, end };
  }

  private functionFor(name: string, at: number): FunctionSpec {
    const fn = lookupFunction(name);
    if (fn) return fn;
    const near = suggest(name, functionNames());
    return this.fail(`unknown function '${name}'${didYouMean(near)}`, at);
  }

  /**
   * A string literal with placeholders, e.g. `"{{first_name}} {{last_name}}" == "Ann Lee"`.
   * Its placeholders are parsed from the unescaped value laid at the literal's offset, so
   * positions match the source exactly unless an escape precedes them.
   */
  private parseTemplateString(t: Extract<Token, { kind: "string" }>): ExprNode {
    const base = t.start + 1;
    const laid = " ".repeat(base) + t.value;
    const scan = scanPlaceholders(laid);
    if (scan.unclosedAt !== null) this.fail("unclosed '{{'", scan.unclosedAt);
    const parts: (string | ExprNode)[] = [];
    for (const piece of scan.pieces) {
      if (piece.kind === "text") {
        parts.push(piece.start < base ? piece.text.slice(base - piece.start) : piece.text);
        continue;
      }
      try {
        const inner = new Parser(laid, piece.innerStart, piece.innerEnd, this.collected, this.itemDepth).parseAll();
        if (!inner) this.fail("empty '{{ }}'", piece.start);
        parts.push(inner);
      } catch (e) {
        // Report against the real source so the caret lands under the literal.
        if (e instanceof ConditionSyntaxError) throw new ConditionSyntaxError(e.detail, e.position, this.source);
        throw e;
      }
    }
    return { kind: "template", parts: parts.filter((p) => p !== ""), start: t.start, end: t.end };
  }

  private peek(): Token {
    return this.tokens[this.pos];
  }

  private atOp(op: Operator): boolean {
    const t = this.tokens[this.pos];
    return t.kind === "op" && t.value === op;
  }

  private atKeyword(k: Keyword): boolean {
    const t = this.tokens[this.pos];
    return t.kind === "keyword" && t.value === k;
  }

  private expect(op: Operator, openedAt: number): Token {
    const t = this.peek();
    if (t.kind === "op" && t.value === op) {
      this.pos++;
      return t;
    }
    const opened = op === ")" || op === "}}" ? ` (opened at ${openedAt})` : "";
    return this.fail(`expected '${op}'${opened} but found ${describe(t)}`, t.start);
  }

  private unexpected(t: Token): never {
    if (t.kind === "eof") this.fail("unexpected end of expression", t.start);
    return this.fail(`unexpected token ${describe(t)}`, t.start);
  }

  private fail(detail: string, at: number): never {
    throw new ConditionSyntaxError(detail, at, this.source);
  }
}

function describe(t: Token): string {
  if (t.kind === "eof") return "end of expression";
  if (t.kind === "string") return JSON.stringify(t.value);
  return `'${t.value}'`;
}

/**
 * Parses `source[from, to)` (the whole source by default). Throws ConditionSyntaxError with
 * an absolute position; never looks at data.
 */
export function parseExpression(source: string, from = 0, to = source.length): ParsedExpression {
  const collected: Collected = { references: [], functions: new Set() };
  const ast = new Parser(source, from, to, collected, 0).parseAll();
  return { ast, references: collected.references, functions: [...collected.functions] };
}
