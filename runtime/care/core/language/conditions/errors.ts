/**
 * Syntax errors of the condition language (and of template placeholders, which use the same
 * grammar). Validation at save time shows them to a caregiver, so each one carries the 0-based
 * offset and a caret display under the offending line.
 */
import { ValidationError } from "../../../../platform/core/errors";

/** What a caller shows: `message` already ends with "at <position>". */
export interface SyntaxErrorInfo {
  readonly message: string;
  /** The message without its position, for displays that show the caret instead. */
  readonly detail: string;
  /** 0-based offset into the source text. */
  readonly position: number;
  /** The source line holding `position`, then a line with `^` under it. */
  readonly caret: string;
}

/** The source line containing `position` with a caret under the column, for error displays. */
export function caretDisplay(source: string, position: number): string {
  const at = Math.max(0, Math.min(position, source.length));
  const lineStart = source.lastIndexOf("\n", at - 1) + 1;
  const nl = source.indexOf("\n", at);
  const line = source.slice(lineStart, nl === -1 ? source.length : nl);
  return `${line}\n${" ".repeat(at - lineStart)}^`;
}

/** Thrown by the parser; a 422 if it ever reaches HTTP, since it is a bad rule, not a crash. */
export class ConditionSyntaxError extends ValidationError {
  readonly position: number;
  readonly caret: string;
  readonly detail: string;

  constructor(detail: string, position: number, source: string) {
    super(`${detail} at ${position}`);
    this.detail = detail;
    this.position = position;
    this.caret = caretDisplay(source, position);
  }

  toInfo(): SyntaxErrorInfo {
    return { message: this.message, detail: this.detail, position: this.position, caret: this.caret };
  }
}
