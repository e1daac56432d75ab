/**
 * Cutting a chat text to the Bot API's limits (counted in UTF-16 units) without splitting a
 * character: a cut through an emoji or an accented letter made of two code points would send
 * half of it, which the chat shows as a broken glyph or refuses as invalid UTF-8.
 */
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The longest start of `text` of whole characters within `max` UTF-16 units. */
export function cutWhole(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  for (const { index, segment } of graphemes.segment(text)) {
    if (index + segment.length > max) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** `text` within `max` units, ending in "…" when it was cut. */
export function cutWithEllipsis(text: string, max: number): string {
  return text.length <= max ? text : `${cutWhole(text, max - 1)}…`;
}
