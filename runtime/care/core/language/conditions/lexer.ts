/**
 * Tokens of the condition language. A dotted path (`person_detections.0.name`) is one token,
 * so `.0` can never be read as a decimal number.
 */
import { ConditionSyntaxError } from "./errors";

export type Operator = "==" | "!=" | ">=" | "<=" | ">" | "<" | "(" | ")" | "," | "|" | "-" | "{{" | "}}";
export type Keyword = "and" | "or" | "not" | "true" | "false" | "null";

export type Token =
  | { readonly kind: "number"; readonly value: number; readonly start: number; readonly end: number }
  | { readonly kind: "string"; readonly value: string; readonly start: number; readonly end: number }
  | { readonly kind: "path"; readonly value: string; readonly start: number; readonly end: number }
  | { readonly kind: "keyword"; readonly value: Keyword; readonly start: number; readonly end: number }
  | { readonly kind: "op"; readonly value: Operator; readonly start: number; readonly end: number }
  | { readonly kind: "eof"; readonly value: ""; readonly start: number; readonly end: number };

// Python spellings are accepted because rules written against the original (and by language
// models) use them; they mean exactly the lowercase keyword.
const KEYWORDS: ReadonlyMap<string, Keyword> = new Map<string, Keyword>([
  ["and", "and"],
  ["or", "or"],
  ["not", "not"],
  ["true", "true"],
  ["false", "false"],
  ["null", "null"],
  ["True", "true"],
  ["False", "false"],
  ["None", "null"],
]);

const TWO_CHAR_OPS: ReadonlySet<string> = new Set(["==", "!=", ">=", "<=", "{{", "}}"]);
const ONE_CHAR_OPS: ReadonlySet<string> = new Set([">", "<", "(", ")", ",", "|", "-"]);

// Spellings from other languages get a pointed hint instead of a bare "unexpected character".
const FOREIGN_HINTS: ReadonlyMap<string, string> = new Map([
  ["=", "use '==' to compare"],
  ["!", "use 'not' instead of '!'"],
  ["[", "list indexes are dotted segments: write items.0, not items[0]"],
]);

const STRING_ESCAPES: ReadonlyMap<string, string> = new Map([
  ["n", "\n"],
  ["t", "\t"],
  ["r", "\r"],
  ["\\", "\\"],
  ["'", "'"],
  ['"', '"'],
  ["0", "\0"],
]);

const isDigit = (c: string): boolean => c >= "0" && c <= "9";
const isIdentStart = (c: string): boolean => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isIdentPart = (c: string): boolean => isIdentStart(c) || isDigit(c);
const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

/** Tokenizes `source[from, to)`; positions stay absolute so template placeholders report offsets in the template. */
export function tokenize(source: string, from = 0, to = source.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  const fail = (detail: string, at: number): never => {
    throw new ConditionSyntaxError(detail, at, source);
  };

  while (i < to) {
    const c = source[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    const two = source.slice(i, Math.min(i + 2, to));

    if (isDigit(c)) {
      i = scanNumber(source, i, to);
      if (i < to && (isIdentStart(source[i]) || source[i] === ".")) {
        let j = i;
        while (j < to && (isIdentPart(source[j]) || source[j] === ".")) j++;
        fail(`malformed number '${source.slice(start, j)}'`, start);
      }
      tokens.push({ kind: "number", value: Number(source.slice(start, i)), start, end: i });
    } else if (c === "'" || c === '"') {
      const { value, end } = scanString(source, i, to, fail);
      i = end;
      tokens.push({ kind: "string", value, start, end });
    } else if (isIdentStart(c)) {
      i = scanPath(source, i, to, fail);
      const text = source.slice(start, i);
      const keyword = KEYWORDS.get(text);
      if (keyword) tokens.push({ kind: "keyword", value: keyword, start, end: i });
      else {
        const root = text.split(".", 1)[0];
        if (KEYWORDS.has(root)) fail(`'${root}' is a keyword and cannot start a path`, start);
        tokens.push({ kind: "path", value: text, start, end: i });
      }
    } else if (two === "||" || two === "&&") {
      // Checked before the one-character operators, or `||` would read as two pipes.
      fail(`use '${two === "||" ? "or" : "and"}' instead of '${two}'`, start);
    } else if (TWO_CHAR_OPS.has(two)) {
      i += 2;
      tokens.push({ kind: "op", value: two as Operator, start, end: i });
    } else if (ONE_CHAR_OPS.has(c)) {
      i += 1;
      tokens.push({ kind: "op", value: c as Operator, start, end: i });
    } else {
      fail(FOREIGN_HINTS.get(c) ?? `unexpected character '${c}'`, start);
    }
  }
  tokens.push({ kind: "eof", value: "", start: i, end: i });
  return tokens;
}

function scanNumber(source: string, i: number, to: number): number {
  while (i < to && isDigit(source[i])) i++;
  if (source[i] === "." && i + 1 < to && isDigit(source[i + 1])) {
    i++;
    while (i < to && isDigit(source[i])) i++;
  }
  if ((source[i] === "e" || source[i] === "E") && i + 1 < to) {
    let j = i + 1;
    if (source[j] === "+" || source[j] === "-") j++;
    if (j < to && isDigit(source[j])) {
      while (j < to && isDigit(source[j])) j++;
      i = j;
    }
  }
  return i;
}

function scanPath(source: string, i: number, to: number, fail: (detail: string, at: number) => never): number {
  while (i < to && isIdentPart(source[i])) i++;
  while (i < to && source[i] === ".") {
    const dot = i++;
    // Segments after the first may start with a digit: they are list indexes.
    if (i >= to || !isIdentPart(source[i])) fail("expected a key or index after '.'", dot);
    while (i < to && isIdentPart(source[i])) i++;
  }
  return i;
}

function scanString(source: string, start: number, to: number, fail: (detail: string, at: number) => never): { value: string; end: number } {
  const quote = source[start];
  let value = "";
  let i = start + 1;
  while (i < to) {
    const c = source[i];
    if (c === quote) return { value, end: i + 1 };
    if (c === "\\" && i + 1 < to) {
      const next = source[i + 1];
      const simple = STRING_ESCAPES.get(next);
      if (simple !== undefined) {
        value += simple;
        i += 2;
      } else if (next === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        value += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        // Unknown escapes keep their backslash, as in Python, so "C:\temp" survives.
        value += c;
        i += 1;
      }
      continue;
    }
    value += c;
    i++;
  }
  return fail("unterminated string", start);
}
