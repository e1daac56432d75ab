/** `knowledge_queries`, owned here: every question asked of the repository and how it was answered. */
import type { Knex } from "knex";
import { deleteSomeWhere } from "../../../../platform/db/delete-before";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";

export type AnsweredVia = "model" | "passage" | "none";

export interface QueryRow {
  id: number;
  asked_at: string;
  senior_id: string | null;
  query_text: string;
  answer_text: string;
  source_document_ids: number[];
  source_chunk_ids: number[];
  top_similarity: number | null;
  answered_via: AnsweredVia;
  channel: string;
  latency_ms: number | null;
}

export type NewQueryRow = Omit<QueryRow, "id">;

const fromDb = (r: Record<string, unknown>): QueryRow => ({
  id: Number(r.id),
  asked_at: String(r.asked_at),
  senior_id: (r.senior_id as string | null) ?? null,
  query_text: String(r.query_text),
  answer_text: String(r.answer_text),
  source_document_ids: fromJsonText<number[]>(r.source_document_ids as string, []),
  source_chunk_ids: fromJsonText<number[]>(r.source_chunk_ids as string, []),
  top_similarity: r.top_similarity === null || r.top_similarity === undefined ? null : Number(r.top_similarity),
  answered_via: r.answered_via as AnsweredVia,
  channel: String(r.channel),
  latency_ms: r.latency_ms === null || r.latency_ms === undefined ? null : Number(r.latency_ms),
});

export async function insertQuery(db: Knex, row: NewQueryRow): Promise<number> {
  const [inserted] = await db("knowledge_queries")
    .insert({ ...row, source_document_ids: toJsonText(row.source_document_ids), source_chunk_ids: toJsonText(row.source_chunk_ids) })
    .returning("id");
  return typeof inserted === "object" ? Number((inserted as { id: number }).id) : Number(inserted);
}

export interface QueryFilter {
  /** Inclusive ISO bounds on `asked_at`. */
  from?: string;
  to?: string;
  answered_via?: AnsweredVia;
  /** Words in the question or the answer, any case. */
  q?: string;
  limit: number;
  offset: number;
}

const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listQueries(db: Knex, f: QueryFilter): Promise<{ items: QueryRow[]; total: number }> {
  const base = db("knowledge_queries");
  if (f.from) base.where("asked_at", ">=", f.from);
  if (f.to) base.where("asked_at", "<", f.to);
  if (f.answered_via) base.where("answered_via", f.answered_via);
  if (f.q) {
    const like = `%${escapeLike(f.q.toLowerCase())}%`;
    base.where((w) => w.whereRaw("lower(query_text) like ? escape '\\'", [like]).orWhereRaw("lower(answer_text) like ? escape '\\'", [like]));
  }
  const totalRow = (await base.clone().count({ n: "*" }).first()) as { n: number | string } | undefined;
  const rows = await base
    .orderBy([
      { column: "asked_at", order: "desc" },
      { column: "id", order: "desc" },
    ])
    .limit(f.limit)
    .offset(f.offset)
    .select("*");
  return { items: rows.map(fromDb), total: Number(totalRow?.n ?? 0) };
}

/** Retention (docs/retention.md): deletes at most `limit` questions asked before the cutoff. */
export function pruneQueriesBefore(db: Knex, cutoffIso: string, limit: number): Promise<number> {
  return deleteSomeWhere(db, "knowledge_queries", `asked_at < ?`, [cutoffIso], limit);
}
