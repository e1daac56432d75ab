/**
 * The nearest chunks to a query vector. SQLite: sqlite-vec's `vec_distance_cosine` over the
 * stored float32 blobs, in SQL. PostgreSQL without extensions: the vectors live in the
 * `bytea` column and are read once into one Float32Array per model (reloaded when this
 * process changed a chunk), then scanned with dot products (vectors are L2-normalized, so
 * the dot product is the cosine). docs/decisions.md has the measurements behind both.
 */
import type { Knex } from "knex";
import type { Dialect } from "../../../platform/db/store";
import { bytesVector, chunkGeneration, nearestSqlite, searchableVectors, type Hit } from "./chunks.store";

interface Matrix {
  generation: number;
  ids: Int32Array;
  documentIds: Int32Array;
  dim: number;
  values: Float32Array;
}

const caches = new WeakMap<Knex, Map<string, Matrix>>();

async function matrixOf(db: Knex, model: string): Promise<Matrix> {
  const generation = chunkGeneration(db);
  let perModel = caches.get(db);
  if (!perModel) caches.set(db, (perModel = new Map()));
  const cached = perModel.get(model);
  if (cached && cached.generation === generation) return cached;
  const rows = await searchableVectors(db, model);
  const dim = rows.length ? rows[0].embedding.byteLength / 4 : 0;
  const usable = rows.filter((r) => r.embedding.byteLength === dim * 4);
  const values = new Float32Array(usable.length * dim);
  usable.forEach((r, i) => values.set(bytesVector(r.embedding), i * dim));
  const matrix: Matrix = {
    generation,
    ids: Int32Array.from(usable.map((r) => r.id)),
    documentIds: Int32Array.from(usable.map((r) => r.document_id)),
    dim,
    values,
  };
  perModel.clear(); // one model's vectors at a time: the old model's go once the setting changes
  perModel.set(model, matrix);
  return matrix;
}

function nearestInMemory(m: Matrix, query: Float32Array, limit: number): Hit[] {
  if (m.dim !== query.length) return [];
  const n = m.ids.length;
  const scores = new Float32Array(n);
  for (let i = 0, off = 0; i < n; i++, off += m.dim) {
    let s = 0;
    for (let d = 0; d < m.dim; d++) s += m.values[off + d] * query[d];
    scores[i] = s;
  }
  // Partial selection: the top `limit` of n, without sorting all n.
  const top: number[] = [];
  for (let i = 0; i < n; i++) {
    if (top.length < limit) {
      top.push(i);
      if (top.length === limit) top.sort((a, b) => scores[b] - scores[a]);
    } else if (scores[i] > scores[top[limit - 1]]) {
      let j = limit - 1;
      while (j > 0 && scores[top[j - 1]] < scores[i]) {
        top[j] = top[j - 1];
        j--;
      }
      top[j] = i;
    }
  }
  if (top.length < limit) top.sort((a, b) => scores[b] - scores[a]);
  return top.map((i) => ({ id: m.ids[i], document_id: m.documentIds[i], score: scores[i] }));
}

export async function nearestChunks(db: Knex, dialect: Dialect, model: string, query: Float32Array, limit: number): Promise<Hit[]> {
  if (limit <= 0) return [];
  if (dialect === "sqlite") return nearestSqlite(db, model, query, limit);
  return nearestInMemory(await matrixOf(db, model), query, limit);
}
