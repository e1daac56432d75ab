/**
 * Splits text into sentence-sized segments. Engines are driven one segment at a time so the first
 * sentence can play while later ones are still being synthesised, and so concurrent requests take
 * turns on the engine instead of queueing behind one long text.
 */
const TERMINATOR = /([.!?;\u0964\u0965\u2026]+["')\]\u201d\u2019]*)(\s+|$)/g;
/** Abbreviations whose period does not end a sentence ("Dr. Rao will call"). */
const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "st", "sr", "jr", "prof", "vs", "etc", "e.g", "i.e", "no"]);

export const MAX_SEGMENT_CHARS = 250;

export function splitSentences(text: string, maxChars = MAX_SEGMENT_CHARS): string[] {
  const segments: string[] = [];
  for (const paragraph of text.split(/\n\s*\n|\r?\n/)) {
    for (const sentence of sentencesOf(paragraph)) segments.push(...bounded(sentence, maxChars));
  }
  return segments.filter((segment) => /[\p{L}\p{N}]/u.test(segment));
}

function sentencesOf(paragraph: string): string[] {
  const text = paragraph.replace(/\s+/g, " ").trim();
  const sentences: string[] = [];
  let start = 0;
  for (const match of text.matchAll(TERMINATOR)) {
    const end = (match.index ?? 0) + match[1].length;
    const lastWord = text.slice(start, match.index).split(" ").pop()?.toLowerCase() ?? "";
    if (match[1] === "." && ABBREVIATIONS.has(lastWord)) continue;
    sentences.push(text.slice(start, end).trim());
    start = end;
  }
  if (start < text.length) sentences.push(text.slice(start).trim());
  return sentences.filter((s) => s.length > 0);
}

/** Long sentences are cut at clause marks, then at spaces, never inside a word. */
function bounded(sentence: string, maxChars: number): string[] {
  if (sentence.length <= maxChars) return [sentence];
  const parts: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const clause = lastIndexOfAny(window, [", ", ": ", " - ", "\u2013 ", "\u2014 "]);
    const space = window.lastIndexOf(" ");
    const cut = clause > maxChars / 3 ? clause + 1 : space > 0 ? space : maxChars;
    parts.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

function lastIndexOfAny(text: string, needles: string[]): number {
  return Math.max(...needles.map((needle) => text.lastIndexOf(needle)));
}
