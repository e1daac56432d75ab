/**
 * Finding the passages for a question. The databases find the candidates: the lexical index
 * (FTS5 / PostgreSQL's tsvector, both stemming) every chunk holding one of the question's words,
 * best first by their own rank, and, when an embedding model is set, the nearest vectors (only
 * those at or above `knowledge.min_similarity`). Each candidate is then scored here from 0 to 1
 * (lexical-score.ts): by words, or, with vectors, the mean of that and its cosine similarity,
 * so the score a caregiver reads is what ranked it. Only chunks of approved documents are
 * searched.
 */
import type { PlatformContext } from "../../../../platform/context";
import { chunksByIds, lexicalHits, termStats } from "./chunks.store";
import { embedTexts } from "./embeddings.client";
import { embeddingModel } from "./embedder";
import { lexicalScores } from "./lexical-score";
import { queryTerms } from "./text-terms";
import { nearestChunks } from "./vector-search";

export { queryTerms } from "./text-terms";

export type SearchContext = Pick<PlatformContext, "db" | "dialect" | "settings" | "log">;

/** The share of a passage's score its cosine similarity carries when vectors were searched. */
export const VECTOR_WEIGHT = 0.5;

export interface Passage {
  chunk_id: number;
  document_id: number;
  text: string;
  /** 0 to 1: the lexical score, or with vectors the mean of it and the cosine similarity. */
  score: number;
  /** The cosine similarity to the question, when vectors were searched and this chunk had one. */
  similarity: number | null;
}

export interface SearchResult {
  passages: Passage[];
  /** `hybrid` when the vector side took part, else `lexical`. */
  mode: "lexical" | "hybrid";
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
  const ids = [...new Set([...lexical.map((h) => h.id), ...(vector ?? []).map((h) => h.id)])];
  const terms = queryTerms(question);
  const [rows, stats] = await Promise.all([chunksByIds(ctx.db, ids), termStats(ctx.db, ctx.dialect, terms, ids)]);
  // Only still searchable: a vector index a moment old may name a chunk archived since.
  const live = rows.filter((c) => c.searchable);
  const words = lexicalScores(question, terms, stats, live);
  const scored = live.map((c) => {
    const w = words.get(c.id) ?? { score: 0, bm25: 0 };
    const sim = similarity.get(c.id) ?? null;
    const score = vector ? (1 - VECTOR_WEIGHT) * w.score + VECTOR_WEIGHT * (sim ?? 0) : w.score;
    return { chunk: c, score, bm25: w.bm25, similarity: sim };
  });
  scored.sort((a, b) => b.score - a.score || b.bm25 - a.bm25 || a.chunk.id - b.chunk.id);
  const passages = scored
    .filter((p) => p.score > 0)
    .slice(0, topK)
    .map((p) => ({ chunk_id: p.chunk.id, document_id: p.chunk.document_id, text: p.chunk.text, score: p.score, similarity: p.similarity }));
  return { passages, mode: vector ? "hybrid" : "lexical" };
}
