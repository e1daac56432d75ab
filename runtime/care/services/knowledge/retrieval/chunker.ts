/**
 * Cuts a document's text into chunks of about `chunk_size_tokens` (4 characters a token, as
 * the spec counts), each starting with the last `chunk_overlap_tokens` of the one before so
 * a fact on a boundary is whole in one of them. Cuts fall where a reader would put them:
 * between paragraphs, else between lines, else between sentences, else between words; a
 * word longer than a whole chunk is the only thing ever cut through.
 */

export const CHARS_PER_TOKEN = 4;

export interface ChunkOptions {
  size_tokens: number;
  overlap_tokens: number;
}

export interface TextChunk {
  text: string;
  /** Offsets into the document's text: `text === source.slice(char_start, char_end)`. */
  char_start: number;
  char_end: number;
  token_count: number;
}

interface Span {
  start: number;
  end: number;
}

const PARAGRAPH = /\n[ \t]*\n\s*/g;
const LINE = /\n\s*/g;
// After a sentence's end mark (and a closing quote or bracket), before the next one.
const SENTENCE = /(?<=[.!?…]["'”’)\]]?)\s+/g;
const WORD = /\s+/g;
const LEVELS = [PARAGRAPH, LINE, SENTENCE, WORD];

export const tokensOf = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** The non-blank pieces of `text[start, end)` between matches of `sep`, trimmed. */
function split(text: string, span: Span, sep: RegExp): Span[] {
  const out: Span[] = [];
  const piece = text.slice(span.start, span.end);
  let from = 0;
  const push = (a: number, b: number): void => {
    const raw = piece.slice(a, b);
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed) out.push({ start: span.start + a + lead, end: span.start + a + lead + trimmed.length });
  };
  for (const m of piece.matchAll(new RegExp(sep.source, "g"))) {
    push(from, m.index);
    from = m.index + m[0].length;
  }
  push(from, piece.length);
  return out;
}

/** Pieces no longer than `max`, each cut at the coarsest boundary that makes it fit. */
function units(text: string, span: Span, max: number, level = 0): Span[] {
  if (span.end - span.start <= max) return [span];
  if (level >= LEVELS.length) {
    const out: Span[] = [];
    for (let s = span.start; s < span.end; s += max) out.push({ start: s, end: Math.min(span.end, s + max) });
    return out;
  }
  const parts = split(text, span, LEVELS[level]);
  if (parts.length <= 1) return units(text, parts[0] ?? span, max, level + 1);
  return parts.flatMap((p) => units(text, p, max, level + 1));
}

/** Where the overlap into the next chunk starts: within the last `overlap` characters, at a sentence or word start. */
function overlapStart(text: string, chunk: Span, overlap: number): number | null {
  if (overlap <= 0) return null;
  const from = Math.max(chunk.start + 1, chunk.end - overlap);
  const tail = text.slice(from, chunk.end);
  const sentence = /[.!?…]["'”’)\]]?\s+(?=\S)/.exec(tail);
  if (sentence) return from + sentence.index + sentence[0].length;
  // Not in the middle of a word: the first word that starts in the window.
  const word = /\s+(?=\S)/.exec(tail);
  const at = text[from - 1] === undefined || /\s/.test(text[from - 1]) ? from : word ? from + word.index + word[0].length : null;
  return at !== null && at < chunk.end ? at : null;
}

export function chunkText(source: string, options: ChunkOptions): TextChunk[] {
  const max = Math.max(1, options.size_tokens * CHARS_PER_TOKEN);
  const overlap = Math.min(Math.max(0, options.overlap_tokens * CHARS_PER_TOKEN), Math.floor(max / 2));
  const pieces = split(source, { start: 0, end: source.length }, PARAGRAPH).flatMap((p) => units(source, p, max));
  const chunks: Span[] = [];
  let i = 0;
  let carry: number | null = null;
  while (i < pieces.length) {
    // The overlap only when the next piece still fits after it.
    let start: number = carry !== null && pieces[i].end - carry <= max ? carry : pieces[i].start;
    let end = pieces[i].end;
    i++;
    while (i < pieces.length && pieces[i].end - start <= max) end = pieces[i++].end;
    if (start > end) start = pieces[i - 1].start;
    const chunk = { start, end };
    chunks.push(chunk);
    carry = overlapStart(source, chunk, overlap);
  }
  return chunks.map((c) => ({ text: source.slice(c.start, c.end), char_start: c.start, char_end: c.end, token_count: tokensOf(c.end - c.start) }));
}
