/**
 * The lexical search's speed on PostgreSQL (docs/decisions.md, issue 25): each chunk's tsvector
 * (~3 kB) was moved out of line into TOAST, so ranking the hundreds of chunks an OR question
 * matches fetched each one from the TOAST table (most of the time, measured by EXPLAIN ANALYZE).
 * The tsvector now stays in the row (`STORAGE MAIN`, a tuple target of 4 kB: the vector, which
 * does not compress, goes out of line instead), and the ranking is `ts_rank` (word frequencies)
 * rather than `ts_rank_cd` (cover density, ~25 µs a row). Existing rows are rewritten once.
 * SQLite: nothing to change here.
 */
import type { Knex } from "knex";

const rankWith = (fn: "ts_rank" | "ts_rank_cd") => `
  CREATE OR REPLACE FUNCTION careflow_knowledge_lexical(q tsquery, n integer)
  RETURNS TABLE (id integer, document_id integer, score real)
  LANGUAGE sql STABLE SET random_page_cost = 1.1
  AS $$
    SELECT c.id, c.document_id, ${fn}(c.tsv, q) AS score
      FROM knowledge_chunks c
     WHERE c.searchable AND c.tsv @@ q
     ORDER BY score DESC, c.id
     LIMIT n
  $$`;

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("ALTER TABLE knowledge_chunks ALTER COLUMN tsv SET STORAGE MAIN");
  await knex.raw("ALTER TABLE knowledge_chunks ALTER COLUMN embedding SET STORAGE EXTERNAL");
  await knex.raw("ALTER TABLE knowledge_chunks SET (toast_tuple_target = 4096)");
  // Storage settings apply to rows as they are written: write the existing ones again.
  await knex.raw("UPDATE knowledge_chunks SET text = text");
  await knex.raw(rankWith("ts_rank"));
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(rankWith("ts_rank_cd"));
  await knex.raw("ALTER TABLE knowledge_chunks RESET (toast_tuple_target)");
  await knex.raw("ALTER TABLE knowledge_chunks ALTER COLUMN embedding SET STORAGE EXTENDED");
  await knex.raw("ALTER TABLE knowledge_chunks ALTER COLUMN tsv SET STORAGE EXTENDED");
}
