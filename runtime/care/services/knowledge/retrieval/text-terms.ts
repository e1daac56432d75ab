/**
 * Words as retrieval compares them in this process: lower case, accents off (as the SQLite
 * index's `remove_diacritics 2`), and a light English stemmer so "visits", "visited" and
 * "visiting" count as one word. The databases stem with Porter/Snowball to find passages; this
 * one only counts how often a question's word is in a passage that was found, so the two need
 * not agree on every word (a word the database matched counts at least once).
 */

// Words that say nothing about the subject: left out so "what is the…" does not match every chunk.
// The one-letter and two-letter pieces are what an apostrophe leaves behind ("Leo's" → "leo", "s").
const STOP = new Set(
  (
    "a about an and any are as at be but by can could did do does for from had has have he her his how i if in into is it its just me my no not of on or our " +
    "please she should so some tell than that the their them then there these they this to was we were what when where which who whom why will with would you your " +
    "s t d ll re ve m"
  ).split(" "),
);

/** The words of a text, lower case, accents off, in order (stop words kept). */
export function words(text: string): string[] {
  return (
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The question's words, lower-case, stop words out, at most 32 of them. */
export function queryTerms(text: string): string[] {
  const all = words(text);
  const kept = all.filter((w) => !STOP.has(w));
  return [...new Set(kept.length ? kept : all)].slice(0, 32);
}

const undouble = (w: string): string => (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w);

/** A light stemmer: plural and verb endings off, a final "e" off, so inflections meet. */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /^\d+$/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (/(ches|shes|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3));
  else if (w.endsWith("ed") && w.length > 4) w = undouble(w.slice(0, -2));
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}
