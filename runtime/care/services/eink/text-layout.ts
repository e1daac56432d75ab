/**
 * Fitting text into a region: word wrap with paragraphs, the largest font size between
 * max and min at which the wrapped text fits, and at the minimum size long words broken
 * and the overflow cut with an ellipsis. Pure: the caller passes how to measure text, so
 * this is tested without a canvas.
 */

/** Width in pixels of `text` drawn at `sizePx`. */
export type Measure = (text: string, sizePx: number) => number;

export interface FitBox {
  width: number;
  height: number;
  sizeMax: number;
  sizeMin: number;
}

export interface FittedText {
  sizePx: number;
  lineHeight: number;
  lines: string[];
  truncated: boolean;
}

export const ELLIPSIS = "\u2026";
// Indian scripts stack vowel signs above and below the letter; 1.3 keeps lines apart.
export const LINE_HEIGHT_RATIO = 1.3;

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const splitGraphemes = (text: string): string[] => Array.from(graphemes.segment(text), (s) => s.segment);

export const lineHeightFor = (sizePx: number): number => Math.ceil(sizePx * LINE_HEIGHT_RATIO);

/** Splits a word too wide for one line at grapheme boundaries (never inside a Tamil syllable). */
function breakWord(word: string, maxWidth: number, sizePx: number, measure: Measure): string[] {
  const parts: string[] = [];
  let current = "";
  for (const g of splitGraphemes(word)) {
    if (current && measure(current + g, sizePx) > maxWidth) {
      parts.push(current);
      current = g;
    } else current += g;
  }
  if (current) parts.push(current);
  return parts;
}

/**
 * Wraps each paragraph (split on newlines) to `maxWidth`. Returns null when a single word
 * is wider than a line and `breakLongWords` is false: the caller then tries a smaller size.
 */
export function wrapText(text: string, maxWidth: number, sizePx: number, measure: Measure, breakLongWords: boolean): string[] | null {
  const lines: string[] = [];
  const space = measure(" ", sizePx);
  for (const paragraph of text.replace(/\r\n?/g, "\n").split("\n")) {
    const words = paragraph.split(/[ \t\u00a0]+/).filter((w) => w.length > 0);
    let line = "";
    let lineWidth = 0;
    for (const word of words) {
      const w = measure(word, sizePx);
      if (line && lineWidth + space + w <= maxWidth) {
        line += " " + word;
        lineWidth += space + w;
        continue;
      }
      if (line) lines.push(line);
      if (w <= maxWidth) {
        line = word;
        lineWidth = w;
        continue;
      }
      if (!breakLongWords) return null;
      const pieces = breakWord(word, maxWidth, sizePx, measure);
      lines.push(...pieces.slice(0, -1));
      line = pieces[pieces.length - 1] ?? "";
      lineWidth = measure(line, sizePx);
    }
    lines.push(line);
  }
  return lines;
}

const fitsHeight = (lineCount: number, sizePx: number, height: number): boolean => lineCount * lineHeightFor(sizePx) <= height;

/** Cuts `line` until it plus an ellipsis fits `maxWidth` (bisection over graphemes). */
export function withEllipsis(line: string, maxWidth: number, sizePx: number, measure: Measure): string {
  const parts = splitGraphemes(line);
  const fits = (n: number) => measure(parts.slice(0, n).join("").trimEnd() + ELLIPSIS, sizePx) <= maxWidth;
  let lo = 0;
  let hi = parts.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return parts.slice(0, lo).join("").trimEnd() + ELLIPSIS;
}

function truncateAtMinimum(text: string, box: FitBox, measure: Measure): FittedText {
  const sizePx = box.sizeMin;
  const lineHeight = lineHeightFor(sizePx);
  const lines = wrapText(text, box.width, sizePx, measure, true) ?? [];
  // A region lower than one line still shows one (clipped) line rather than nothing.
  const maxLines = Math.max(1, Math.floor(box.height / lineHeight));
  if (lines.length <= maxLines) return { sizePx, lineHeight, lines, truncated: false };
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = withEllipsis(kept[maxLines - 1], box.width, sizePx, measure);
  return { sizePx, lineHeight, lines: kept, truncated: true };
}

/**
 * The largest whole font size from `sizeMax` down to `sizeMin` at which the text wraps
 * without breaking a word and fits the height. A larger size never fits where a smaller
 * one does not, so bisection finds the same size as stepping down one pixel at a time,
 * in about log2(max - min) wraps instead of (max - min).
 */
export function fitText(text: string, box: FitBox, measure: Measure): FittedText {
  const attempt = (sizePx: number): string[] | null => {
    const lines = wrapText(text, box.width, sizePx, measure, false);
    return lines && fitsHeight(lines.length, sizePx, box.height) ? lines : null;
  };
  let best: { sizePx: number; lines: string[] } | null = null;
  let lo = box.sizeMin;
  let hi = box.sizeMax;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    const lines = attempt(mid);
    if (lines) {
      best = { sizePx: mid, lines };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best) return { sizePx: best.sizePx, lineHeight: lineHeightFor(best.sizePx), lines: best.lines, truncated: false };
  return truncateAtMinimum(text, box, measure);
}
