/**
 * Finds `{{ ... }}` placeholders in text. Used by templates and by string literals inside
 * conditions, so both agree on where a placeholder starts and ends.
 */

export type TemplatePiece =
  | { readonly kind: "text"; readonly text: string; readonly start: number; readonly end: number }
  /** `start`/`end` span the braces; `innerStart`/`innerEnd` the expression between them. */
  | {
      readonly kind: "placeholder";
      readonly start: number;
      readonly end: number;
      readonly innerStart: number;
      readonly innerEnd: number;
    };

export interface PlaceholderScan {
  readonly pieces: readonly TemplatePiece[];
  /** Offset of a `{{` that is never closed (the rest of the text is then plain text). */
  readonly unclosedAt: number | null;
}

/** Index of the `}}` closing a placeholder whose expression starts at `from`, or -1. */
function findClose(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "}" && text[i + 1] === "}") return i;
    if (c === "'" || c === '"') {
      // A quoted `}}` inside the expression does not close it.
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      // An unmatched quote (an apostrophe in a typo) is left for the parser to report.
      if (j < text.length) i = j;
    }
  }
  return -1;
}

export function scanPlaceholders(text: string): PlaceholderScan {
  const pieces: TemplatePiece[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("{{", i);
    if (open === -1) break;
    if (open > i) pieces.push({ kind: "text", text: text.slice(i, open), start: i, end: open });
    const close = findClose(text, open + 2);
    if (close === -1) {
      pieces.push({ kind: "text", text: text.slice(open), start: open, end: text.length });
      return { pieces, unclosedAt: open };
    }
    pieces.push({ kind: "placeholder", start: open, end: close + 2, innerStart: open + 2, innerEnd: close });
    i = close + 2;
  }
  if (i < text.length) pieces.push({ kind: "text", text: text.slice(i), start: i, end: text.length });
  return { pieces, unclosedAt: null };
}
