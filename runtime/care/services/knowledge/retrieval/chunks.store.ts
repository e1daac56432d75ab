/**
 * `knowledge_chunks`, owned here: a document's chunks, whether they may be searched (their
 * document is approved), and each chunk's vector and the model that made it. The lexical
 * index follows the rows by itself (migration 023: FTS5 triggers on SQLite; on PostgreSQL a
 * generated tsvector, whose words triggers copy into `knowledge_chunk_terms`, migration 029).
 * Every write bumps this store's generation, which the in-process vector cache compares
 * (vector-search.ts).
 */
import type { Knex } from "knex";
import { toBool } from "../../../../platform/db/json-column";
import type { TextChunk } from "./chunker";
import { tidyTerms } from "./terms-upkeep";

export interface ChunkRow {
  id: number;
  document_id: number;
  chunk_index: number;
  text: string;
  char_start: number;
  char_end: number;
  token_count: number;
  searchable: boolean;
  embedding_model: string | null;
}

const generations = new WeakMap<Knex, number>();
/** Changes whenever a chunk, its vector or its searchability changes on this store. */
export const chunkGeneration = (db: Knex): number => generations.get(db) ?? 0;
const bump = (db: Knex): void => void generations.set(db, chunkGeneration(db) + 1);

const COLUMNS = ["id", "document_id", "chunk_index", "text", "char_start", "char_end", "token_count", "searchable", "embedding_model"];

const fromDb = (r: Record<string, unknown>): ChunkRow => ({
  id: Number(r.id),
  document_id: Number(r.document_id),
  chunk_index: Number(r.chunk_index),
  text: String(r.text),
  char_start: Number(r.char_start),
  char_end: Number(r.char_end),
  token_count: Number(r.token_count),
  searchable: toBool(r.searchable),
  embedding_model: (r.embedding_model as string | null) ?? null,
});

/** Replaces a document's chunks in one transaction (their vectors go with them). */
export async function replaceChunks(db: Knex, documentId: number, chunks: readonly TextChunk[], searchable: boolean): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("knowledge_chunks").where({ document_id: documentId }).delete();
    const rows = chunks.map((c, i) => ({ document_id: documentId, chunk_index: i, ...c, searchable }));
    // PostgreSQL takes at most 65535 bindings a statement: 8 columns, so 500 rows at a time.
    for (let i = 0; i < rows.length; i += 500) await trx("knowledge_chunks").insert(rows.slice(i, i + 500));
  });
  bump(db);
  tidyTerms(db);
}

export async function setSearchable(db: Knex, documentId: number, searchable: boolean): Promise<void> {
  await db("knowledge_chunks").where({ document_id: documentId }).update({ searchable });
  bump(db);
  tidyTerms(db);
}

export async function deleteChunksOf(db: Knex, documentId: number): Promise<void> {
  await db("knowledge_chunks").where({ document_id: documentId }).delete();
  bump(db);
  tidyTerms(db);
}

export async function chunksOf(db: Knex, documentId: number): Promise<ChunkRow[]> {
  const rows = await db("knowledge_chunks").where({ document_id: documentId }).orderBy("chunk_index").select(COLUMNS);
  return rows.map(fromDb);
}

export async function chunksByIds(db: Knex, ids: readonly number[]): Promise<ChunkRow[]> {
  if (ids.length === 0) return [];
  const rows = await db("knowledge_chunks")
    .whereIn("id", [...ids])
    .select(COLUMNS);
  return rows.map(fromDb);
}

/** Chunk count per document, for the given documents. */
export async function chunkCounts(db: Knex, documentIds: readonly number[]): Promise<Map<number, number>> {
  if (documentIds.length === 0) return new Map();
  const rows: Array<{ document_id: number; n: number | string }> = await db("knowledge_chunks")
    .whereIn("document_id", [...documentIds])
    .groupBy("document_id")
    .select("document_id")
    .count({ n: "*" });
  return new Map(rows.map((r) => [Number(r.document_id), Number(r.n)]));
}

/** Up to `limit` chunks without a vector of `model` (documents in id order, so one document finishes before the next). */
export async function chunksToEmbed(db: Knex, model: string, limit: number, after = 0): Promise<ChunkRow[]> {
  const rows = await db("knowledge_chunks")
    .where((q) => q.whereNull("embedding_model").orWhereNot("embedding_model", model))
    .andWhere("id", ">", after)
    .orderBy("id")
    .limit(limit)
    .select(COLUMNS);
  return rows.map(fromDb);
}

/** Whether every chunk of the document has a vector of `model`. */
export async function documentEmbeddedWith(db: Knex, documentId: number, model: string): Promise<boolean> {
  const row = (await db("knowledge_chunks")
    .where({ document_id: documentId })
    .andWhere((q) => q.whereNull("embedding_model").orWhereNot("embedding_model", model))
    .count({ n: "*" })
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0) === 0;
}

/** Forgets the vectors of a document (a forced re-embed) or of every chunk. */
export async function clearEmbeddings(db: Knex, documentId?: number): Promise<void> {
  const q = db("knowledge_chunks");
  if (documentId !== undefined) q.where({ document_id: documentId });
  await q.update({ embedding: null, embedding_model: null });
  bump(db);
}

export const vectorBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
export const bytesVector = (b: Buffer | Uint8Array): Float32Array => {
  const copy = Uint8Array.from(b);
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
};

/** Stores vectors; a chunk deleted meanwhile (its document re-chunked) is simply not updated. */
export async function storeEmbeddings(db: Knex, model: string, vectors: ReadonlyArray<{ id: number; text: string; vector: Float32Array }>): Promise<void> {
  await db.transaction(async (trx) => {
    // Only if the text is still what was embedded: a chunk id is never reused, but be sure.
    for (const v of vectors)
      await trx("knowledge_chunks")
        .where({ id: v.id, text: v.text })
        .update({ embedding: vectorBytes(v.vector), embedding_model: model });
  });
  bump(db);
}

/** Every searchable vector of `model` (the PostgreSQL vector cache loads them once per generation). */
export async function searchableVectors(db: Knex, model: string): Promise<Array<{ id: number; document_id: number; embedding: Buffer }>> {
  const rows: Array<{ id: number; document_id: number; embedding: Buffer }> = await db("knowledge_chunks")
    .where({ searchable: true, embedding_model: model })
    .whereNotNull("embedding")
    .select("id", "document_id", "embedding");
  return rows.map((r) => ({ id: Number(r.id), document_id: Number(r.document_id), embedding: r.embedding }));
}

export interface Hit {
  id: number;
  document_id: number;
  score: number;
}

/** SQLite: the exact cosine similarity of these chunks to `query`, computed by sqlite-vec in SQL. */
export async function rescoreSqlite(db: Knex, model: string, ids: readonly number[], query: Float32Array): Promise<Hit[]> {
  const out: Hit[] = [];
  const q = vectorBytes(query);
  for (let i = 0; i < ids.length; i += 500) {
    const rows: Array<{ id: number; document_id: number; distance: number }> = await db("knowledge_chunks")
      .whereIn("id", ids.slice(i, i + 500))
      // The index may be a moment old: only chunks still searchable, with a vector of this model.
      .where({ searchable: true, embedding_model: model })
      .whereNotNull("embedding")
      .select("id", "document_id", db.raw("vec_distance_cosine(embedding, ?) as distance", [q]));
    for (const r of rows) out.push({ id: Number(r.id), document_id: Number(r.document_id), score: 1 - Number(r.distance) });
  }
  return out;
}

/** Which of these chunks are still searchable with a vector of `model` (the in-process index may be a moment old). */
export async function stillSearchable(db: Knex, model: string, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows: Array<{ id: number }> = await db("knowledge_chunks")
    .whereIn("id", [...ids])
    .where({ searchable: true, embedding_model: model })
    .select("id");
  return new Set(rows.map((r) => Number(r.id)));
}

/** Lexical hits, best first; `terms` are plain words (the caller strips everything else). */
export async function lexicalHits(db: Knex, dialect: "sqlite" | "postgres", terms: readonly string[], limit: number): Promise<Hit[]> {
  if (terms.length === 0) return [];
  if (dialect === "postgres") {
    // Each word on its own (a question's words need not all be in one chunk), ranked from the
    // table of terms the search function reads (migration 029): one round trip.
    const result = await db.raw("select id, document_id, score from careflow_knowledge_search(?, ?)", [terms.join(" "), limit]);
    return (result.rows as Array<{ id: number; document_id: number; score: number }>).map((r) => ({
      id: Number(r.id),
      document_id: Number(r.document_id),
      score: Number(r.score),
    }));
  }
  const match = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
  // Ranked inside FTS5 first, without reading a chunk row for each of the (often thousands of)
  // matches: twice the limit, then only those still searchable. Fewer than asked means every
  // match was ranked; enough searchable ones among them are the same top as the join below, which
  // runs only when too many of the best are not searchable (docs/decisions.md, issue 25).
  const wanted = limit * 2;
  const best: Array<{ id: number; rank: number }> = await db.raw(
    `select rowid as id, bm25(knowledge_chunks_fts) as rank
       from knowledge_chunks_fts
      where knowledge_chunks_fts match ?
      order by rank, rowid
      limit ?`,
    [match, wanted],
  );
  const ids = best.map((r) => Number(r.id));
  const searchable = new Map<number, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows: Array<{ id: number; document_id: number }> = await db("knowledge_chunks")
      .whereIn("id", ids.slice(i, i + 500))
      .where({ searchable: true })
      .select("id", "document_id");
    for (const r of rows) searchable.set(Number(r.id), Number(r.document_id));
  }
  const kept = best.filter((r) => searchable.has(Number(r.id)));
  if (best.length < wanted || kept.length >= limit) {
    // bm25() is lower-is-better and negative; the score shown is its negation.
    return kept.slice(0, limit).map((r) => ({ id: Number(r.id), document_id: searchable.get(Number(r.id))!, score: -Number(r.rank) }));
  }
  const rows: Array<{ id: number; document_id: number; rank: number }> = await db.raw(
    `select c.id, c.document_id, bm25(knowledge_chunks_fts) as rank
       from knowledge_chunks_fts join knowledge_chunks c on c.id = knowledge_chunks_fts.rowid
      where knowledge_chunks_fts match ? and c.searchable = 1
      order by rank, c.id
      limit ?`,
    [match, limit],
  );
  return rows.map((r) => ({ id: Number(r.id), document_id: Number(r.document_id), score: -Number(r.rank) }));
}

export interface TermStats {
  /** Chunks in the index (every chunk: the SQLite index holds drafts' words too, so both sides count them). */
  total: number;
  /** Their mean length in characters. */
  meanChars: number;
  /** Per question word, in order: how many chunks hold it, and which of `among` do (as the database stems it). */
  terms: Array<{ df: number; holders: Set<number> }>;
}

/** What the lexical score needs from the whole index: its size, and each word's spread over it. */
export async function termStats(db: Knex, dialect: "sqlite" | "postgres", terms: readonly string[], among: readonly number[]): Promise<TermStats> {
  const size = (await db("knowledge_chunks")
    .count({ n: "*" })
    .avg({ chars: db.raw("char_end - char_start") })
    .first()) as { n: number | string; chars: number | string | null } | undefined;
  const out: TermStats = { total: Number(size?.n ?? 0), meanChars: Number(size?.chars ?? 0) || 1, terms: [] };
  const ids = among.slice(0, 500);
  for (const term of terms) {
    let df: number;
    let holders: Array<{ id: number }>;
    if (dialect === "postgres") {
      const q = "plainto_tsquery('careflow_english', ?)";
      df = Number((await db.raw(`select count(*) as n from knowledge_chunks where tsv @@ ${q}`, [term])).rows[0].n);
      holders = ids.length ? (await db.raw(`select id from knowledge_chunks where id = any(?) and tsv @@ ${q}`, [ids, term])).rows : [];
    } else {
      const match = `"${term.replace(/"/g, '""')}"`;
      df = Number((await db.raw("select count(*) as n from knowledge_chunks_fts where knowledge_chunks_fts match ?", [match]))[0].n);
      holders = ids.length
        ? await db.raw(`select rowid as id from knowledge_chunks_fts where knowledge_chunks_fts match ? and rowid in (${ids.map(() => "?").join(",")})`, [
            match,
            ...ids,
          ])
        : [];
    }
    out.terms.push({ df, holders: new Set(holders.map((h) => Number(h.id))) });
  }
  return out;
}
