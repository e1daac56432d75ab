/**
 * "Did you mean": the closest known name to an unknown one, for step labels, pipeline_data
 * keys and function names. Distance is optimal string alignment (Damerau–Levenshtein where a
 * swap of two neighbours costs one), compared without letter case.
 */

/** Edit distance with adjacent transpositions; stops early once every cell exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prevPrev: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prevPrev[j - 2] + 1);
      row.push(d);
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    prevPrev = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * How many edits still count as a typo of a name this long: none for one or two characters
 * (any two short names are "close"), then one edit per three characters, at most four.
 */
const allowedEdits = (length: number): number => (length <= 2 ? 0 : Math.min(4, Math.max(1, Math.floor(length / 3))));

/**
 * The candidate closest to `name`, or undefined when none is close enough. Ties go to the
 * earlier candidate, so callers can order candidates by preference.
 */
export function suggest(name: string, candidates: Iterable<string>): string | undefined {
  const needle = name.toLowerCase();
  const limit = allowedEdits(needle.length);
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    // Only a strictly closer candidate matters, which bounds the work per candidate.
    const d = editDistance(needle, candidate.toLowerCase(), bestDistance - 1);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The words a message adds for a suggestion: "; did you mean 'x'?", or nothing. */
export const didYouMean = (hint: string | null | undefined): string => (hint ? `; did you mean '${hint}'?` : "");
