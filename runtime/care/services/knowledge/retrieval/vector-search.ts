/**
 * The nearest chunks to a question's vector, in two steps (docs/decisions.md has the
 * measurements): a scan of a binary-quantized copy of every vector held in this process (one
 * sign bit a dimension, compared by Hamming distance: 10,000 × 768 dims in a few ms), then the
 * exact cosine of the best candidates (at least 128, 8 × the number asked): on SQLite by
 * sqlite-vec's `vec_distance_cosine` over the stored float32 blobs, on PostgreSQL (no
 * extension needed) over float32 copies held here. With no more chunks than candidates every
 * chunk is scored exactly. The copies are rebuilt when this process changed a chunk
 * (`chunkGeneration`): in the background once there is an index, which questions keep using
 * meanwhile (a rebuild over 10,000 vectors takes a second or two, and the embedder changes
 * chunks batch by batch); what it returns is checked against the rows, so a chunk archived
 * since is never answered from, and a chunk embedded since is found by its words until then.
 */
import type { Knex } from "knex";
import type { Dialect } from "../../../../platform/db/store";
import { bytesVector, chunkGeneration, rescoreSqlite, searchableVectors, stillSearchable, type Hit } from "./chunks.store";

interface Index {
  generation: number;
  ids: Int32Array;
  documentIds: Int32Array;
  dim: number;
  words: number;
  bits: Uint32Array;
  /** Float copies, PostgreSQL only (SQLite rescores in SQL). */
  values: Float32Array | null;
}

const MIN_CANDIDATES = 128;
const caches = new WeakMap<Knex, Map<string, Index>>();
const rebuilding = new WeakMap<Knex, Promise<void>>();

function signBits(v: Float32Array, out: Uint32Array, offset: number): void {
  for (let d = 0; d < v.length; d++) if (v[d] > 0) out[offset + (d >>> 5)] |= 1 << (d & 31);
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

async function buildIndex(db: Knex, dialect: Dialect, model: string): Promise<Index> {
  const generation = chunkGeneration(db);
  const rows = await searchableVectors(db, model);
  const dim = rows.length ? rows[0].embedding.byteLength / 4 : 0;
  const usable = rows.filter((r) => r.embedding.byteLength === dim * 4);
  const words = Math.ceil(dim / 32);
  const bits = new Uint32Array(usable.length * words);
  const values = dialect === "postgres" ? new Float32Array(usable.length * dim) : null;
  usable.forEach((r, i) => {
    const v = bytesVector(r.embedding);
    signBits(v, bits, i * words);
    values?.set(v, i * dim);
  });
  const index: Index = {
    generation,
    ids: Int32Array.from(usable.map((r) => r.id)),
    documentIds: Int32Array.from(usable.map((r) => r.document_id)),
    dim,
    words,
    bits,
    values,
  };
  let perModel = caches.get(db);
  if (!perModel) caches.set(db, (perModel = new Map()));
  perModel.clear(); // one model's vectors at a time: the old model's go once the setting changes
  perModel.set(model, index);
  return index;
}

async function indexOf(db: Knex, dialect: Dialect, model: string): Promise<Index> {
  const cached = caches.get(db)?.get(model);
  if (!cached) return buildIndex(db, dialect, model);
  if (cached.generation !== chunkGeneration(db) && !rebuilding.has(db)) {
    const rebuild = buildIndex(db, dialect, model)
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => rebuilding.delete(db));
    rebuilding.set(db, rebuild);
  }
  return cached;
}

/** Positions of the `n` vectors nearest by Hamming distance (all of them when there are no more). */
function candidates(index: Index, query: Float32Array, n: number): number[] {
  const count = index.ids.length;
  if (count <= n) return Array.from({ length: count }, (_, i) => i);
  const q = new Uint32Array(index.words);
  signBits(query, q, 0);
  const distance = new Uint16Array(count);
  const histogram = new Uint32Array(index.dim + 1);
  for (let i = 0, off = 0; i < count; i++, off += index.words) {
    let s = 0;
    for (let w = 0; w < index.words; w++) s += popcount(index.bits[off + w] ^ q[w]);
    distance[i] = s;
    histogram[s]++;
  }
  let limit = 0;
  for (let seen = 0; seen < n && limit <= index.dim; limit++) seen += histogram[limit];
  const out: number[] = [];
  for (let i = 0; i < count; i++) if (distance[i] < limit) out.push(i);
  return out;
}

function rescoreInMemory(index: Index, query: Float32Array, positions: readonly number[]): Hit[] {
  const values = index.values!;
  return positions.map((i) => {
    let s = 0;
    const off = i * index.dim;
    for (let d = 0; d < index.dim; d++) s += values[off + d] * query[d];
    return { id: index.ids[i], document_id: index.documentIds[i], score: s };
  });
}

export async function nearestChunks(db: Knex, dialect: Dialect, model: string, query: Float32Array, limit: number): Promise<Hit[]> {
  if (limit <= 0) return [];
  const index = await indexOf(db, dialect, model);
  if (index.dim !== query.length || index.ids.length === 0) return [];
  const positions = candidates(index, query, Math.max(MIN_CANDIDATES, limit * 8));
  if (dialect === "sqlite") {
    const scored = await rescoreSqlite(
      db,
      model,
      positions.map((i) => index.ids[i]),
      query,
    );
    return scored.sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
  }
  const best = rescoreInMemory(index, query, positions).sort((a, b) => b.score - a.score || a.id - b.id);
  const top = best.slice(0, limit * 2);
  const live = await stillSearchable(
    db,
    model,
    top.map((h) => h.id),
  );
  return top.filter((h) => live.has(h.id)).slice(0, limit);
}
