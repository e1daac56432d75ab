/**
 * Finding the passages for a question: the lexical ranking always (FTS5 bm25 / PostgreSQL
 * ts_rank's score over the question's words, from a table of terms), the vector ranking when
 * an embedding model is set (only hits at or above `knowledge.min_similarity`), fused by
 * reciprocal rank fusion (score = Σ 1/(60 + rank)), which needs no common scale between bm25
 * and cosine. Only chunks of approved documents are searched.
 */
import type { PlatformContext } from "../../../platform/context";
import { chunksByIds, type Hit } from "./chunks.store";
import { lexicalHits } from "./chunks.store";
import { embedTexts } from "./embeddings.client";
import { embeddingModel } from "./embedder";
import { nearestChunks } from "./vector-search";

export type SearchContext = Pick<PlatformContext, "db" | "dialect" | "settings" | "log">;

/** The k of reciprocal rank fusion (the value of the paper that introduced it). */
export const RRF_K = 60;

export interface Passage {
  chunk_id: number;
  document_id: number;
  text: string;
  /** The fused score (RRF), or the lexical score when only words were searched. */
  score: number;
  /** The cosine similarity to the question, when vectors were searched and this chunk had one. */
  similarity: number | null;
}

export interface SearchResult {
  passages: Passage[];
  /** `hybrid` when the vector side took part, else `lexical`. */
  mode: "lexical" | "hybrid";
}

// Words that say nothing about the subject: left out so "what is the…" does not match every chunk.
const STOP = new Set(
  "a an and are as at be but by can did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to was we were what when where which who whom why will with would you your".split(
    " ",
  ),
);

/** The question's words, lower-case, stop words out, at most 32 of them. */
export function queryTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const kept = words.filter((w) => !STOP.has(w));
  return [...new Set(kept.length ? kept : words)].slice(0, 32);
}

export function fuse(rankings: ReadonlyArray<readonly Hit[]>): Array<{ id: number; document_id: number; score: number }> {
  const fused = new Map<number, { id: number; document_id: number; score: number }>();
  for (const ranking of rankings) {
    ranking.forEach((hit, rank) => {
      const entry = fused.get(hit.id) ?? { id: hit.id, document_id: hit.document_id, score: 0 };
      entry.score += 1 / (RRF_K + rank + 1);
      fused.set(hit.id, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.id - b.id);
}

/** Embeds the question with the embedding model (when one is set) and searches. */
export async function searchChunks(ctx: SearchContext, question: string, topK = ctx.settings.knowledge.retrieval_top_k): Promise<SearchResult> {
  const model = embeddingModel(ctx);
  let vector: Float32Array | null = null;
  if (model) {
    try {
      [vector] = await embedTexts(model, [question], ctx.settings.embedding.dim);
    } catch (err) {
      // The words still find passages: a model that is down costs the vector side only.
      ctx.log.warn({ err, model: model.id }, "knowledge: the question could not be embedded; searching by words only");
    }
  }
  return searchWith(ctx, question, model && vector ? { model: model.id, vector } : null, topK);
}

/** The search itself, given the question's vector (or none: words only). */
export async function searchWith(
  ctx: SearchContext,
  question: string,
  query: { model: string; vector: Float32Array } | null,
  topK: number,
): Promise<SearchResult> {
  const pool = Math.max(topK * 4, 20);
  const min = ctx.settings.knowledge.min_similarity;
  // Both sides at once: on PostgreSQL the vector scan (in this process) runs while the words'
  // query is on the server, and each takes its own connection.
  const [lexical, vector] = await Promise.all([
    lexicalHits(ctx.db, ctx.dialect, queryTerms(question), pool),
    query ? nearestChunks(ctx.db, ctx.dialect, query.model, query.vector, topK * 2).then((hits) => hits.filter((h) => h.score >= min)) : null,
  ]);
  const similarity = new Map((vector ?? []).map((h) => [h.id, h.score]));
  const ranked = vector ? fuse([lexical, vector]) : lexical;
  const top = ranked.slice(0, topK);
  const rows = new Map(
    (
      await chunksByIds(
        ctx.db,
        top.map((h) => h.id),
      )
    ).map((c) => [c.id, c]),
  );
  const passages = top.flatMap((h) => {
    const c = rows.get(h.id);
    return c ? [{ chunk_id: c.id, document_id: c.document_id, text: c.text, score: h.score, similarity: similarity.get(h.id) ?? null }] : [];
  });
  return { passages, mode: vector ? "hybrid" : "lexical" };
}
