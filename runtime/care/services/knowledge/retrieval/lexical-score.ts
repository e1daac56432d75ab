/**
 * The lexical score of a passage, from 0 to 1: the share of the question's words it holds,
 * each word weighed by how rare it is in the repository (BM25's idf in the form Lucene uses,
 * ln(1 + (N − df + ½)/(df + ½)), never zero or negative, unlike FTS5's bm25() whose idf
 * falls to 10⁻⁶ once a word is in half the chunks: in a household's handful of passages
 * every score read 0.000). A word counts fully once the passage holds it as often as BM25
 * expects from a passage of its length (k1 1.2, b 0.75), less in a long passage that mentions it
 * once. When the question asks for a kind of answer (an age, a day, a name, a place), a fifth
 * of the score is whether the passage holds such a word next to the question's subject.
 */
import { answerKind, cueStrength } from "./answer-cues";
import type { TermStats } from "./chunks.store";
import { stem, words } from "./text-terms";

const K1 = 1.2;
const B = 0.75;
/** The share of the score an answer of the asked kind carries. */
export const CUE_WEIGHT = 0.2;

export interface LexicalScore {
  /** 0 to 1, what the passage shows as its score when no vectors were searched. */
  score: number;
  /** Unbounded BM25, to order passages of equal score. */
  bm25: number;
}

export interface ScoredText {
  id: number;
  text: string;
}

/** Scores each passage for the question; `terms` are the question's words as `stats` was read for. */
export function lexicalScores(question: string, terms: readonly string[], stats: TermStats, passages: readonly ScoredText[]): Map<number, LexicalScore> {
  const idf = stats.terms.map((t) => Math.log(1 + (stats.total - t.df + 0.5) / (t.df + 0.5)));
  // A word no passage holds ("old" in "How old is Leo?", a typo) weighs as the rarest word some
  // passage holds: it still counts against every passage, but does not drown the words that match.
  const rarest = Math.max(0, ...idf.filter((_, i) => stats.terms[i].df > 0));
  const weights = idf.map((w, i) => (stats.terms[i].df === 0 && rarest > 0 ? rarest : w));
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const stems = terms.map(stem);
  const subject = new Set(stems);
  const kind = answerKind(question);
  const out = new Map<number, LexicalScore>();
  for (const p of passages) {
    const tokens = words(p.text);
    const stemmed = tokens.map(stem);
    const norm = 1 - B + (B * p.text.length) / stats.meanChars;
    let covered = 0;
    let bm25 = 0;
    stems.forEach((s, i) => {
      const tf = Math.max(
        stemmed.filter((w) => w === s).length,
        stats.terms[i]?.holders.has(p.id) ? 1 : 0, // the database's stemmer found it where this one did not
      );
      if (tf === 0) return;
      const saturation = (tf * (K1 + 1)) / (tf + K1 * norm);
      bm25 += weights[i] * saturation;
      covered += weights[i] * Math.min(1, saturation);
    });
    const coverage = totalWeight > 0 ? covered / totalWeight : 0;
    const cue = kind && coverage > 0 ? cueStrength(kind, tokens, (w) => subject.has(stem(w))) : null;
    const score = cue === null ? coverage : (1 - CUE_WEIGHT) * coverage + CUE_WEIGHT * cue;
    out.set(p.id, { score, bm25 });
  }
  return out;
}
