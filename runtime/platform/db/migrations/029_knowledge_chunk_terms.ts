/**
 * The lexical search on PostgreSQL from a table of terms (docs/decisions.md, issue 25):
 * `knowledge_chunk_terms` holds, for every searchable chunk, one row per word (lexeme of its
 * tsvector) with that word's share of `ts_rank` precomputed. A question then reads only its
 * words' rows from the primary key (an index-only scan, a few thousand small entries) and sums
 * them per chunk, instead of visiting the heap page of every chunk that has one of its words
 * (one 8 kB page each, thousands for a common word: most of the time, by EXPLAIN ANALYZE).
 *
 * The score is the one `ts_rank(tsv, q)` gives for the OR of the question's words, computed the
 * same way (PostgreSQL's `calc_rank_or`): a word found at n positions weighs
 * Σ_{j≤n} w_D / j² / (π²/6) (w_D = 0.1, the weight of an unlabelled position), and the sum
 * over the question's words is divided by the number of its distinct words. Chunks that were
 * equal up to float rounding are now exactly equal, so they come in id order.
 *
 * Triggers keep the table in step with `knowledge_chunks` (a chunk's rows come when it becomes
 * searchable and go when it stops being so, changes text or is deleted), so only the search
 * function reads it. The GIN index and `careflow_knowledge_lexical` (023, 028) are no longer
 * used and go. SQLite: nothing to change here.
 */
import type { Knex } from "knex";

/** Σ_{j≤n} w_D / j² / (π²/6) for n = 1…256, w_D = 0.1 as the float4 ts_rank holds it. */
function termWeights(): string[] {
  const wD = Math.fround(0.1);
  const out: string[] = [];
  for (let n = 1, s = 0; n <= 256; n++) {
    s += wD / (n * n);
    out.push((s / 1.64493406685).toPrecision(17));
  }
  return out;
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== "pg") return;
  await knex.raw(`
    CREATE TABLE knowledge_chunk_terms (
      lexeme text COLLATE "C" NOT NULL,
      chunk_id integer NOT NULL,
      document_id integer NOT NULL,
      weight double precision NOT NULL,
      PRIMARY KEY (lexeme, chunk_id) INCLUDE (document_id, weight)
    )`);
  // A word at n positions: what ts_rank adds for it. A tsvector keeps at most 256 positions of
  // a word, so the 256 values are listed once (a plain expression: the function is inlined).
  await knex.raw(`
    CREATE FUNCTION careflow_knowledge_term_weight(n integer) RETURNS double precision
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT ('{${termWeights().join(",")}}'::double precision[])[least(greatest(coalesce(n, 1), 1), 256)] $$`);
  await knex.raw(`
    CREATE FUNCTION careflow_knowledge_terms_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        IF OLD.searchable THEN
          DELETE FROM knowledge_chunk_terms WHERE lexeme = ANY (tsvector_to_array(OLD.tsv)) AND chunk_id = OLD.id;
        END IF;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        IF NEW.searchable THEN
          INSERT INTO knowledge_chunk_terms (lexeme, chunk_id, document_id, weight)
          SELECT t.lexeme, NEW.id, NEW.document_id, careflow_knowledge_term_weight(cardinality(t.positions))
            FROM unnest(NEW.tsv) t;
        END IF;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER knowledge_chunk_terms_ai AFTER INSERT ON knowledge_chunks
    FOR EACH ROW WHEN (NEW.searchable) EXECUTE FUNCTION careflow_knowledge_terms_sync()`);
  await knex.raw(`
    CREATE TRIGGER knowledge_chunk_terms_au AFTER UPDATE OF searchable, text, document_id ON knowledge_chunks
    FOR EACH ROW WHEN ((OLD.searchable OR NEW.searchable) AND (OLD.searchable IS DISTINCT FROM NEW.searchable
      OR OLD.text IS DISTINCT FROM NEW.text OR OLD.document_id IS DISTINCT FROM NEW.document_id))
    EXECUTE FUNCTION careflow_knowledge_terms_sync()`);
  await knex.raw(`
    CREATE TRIGGER knowledge_chunk_terms_ad AFTER DELETE ON knowledge_chunks
    FOR EACH ROW WHEN (OLD.searchable) EXECUTE FUNCTION careflow_knowledge_terms_sync()`);
  await knex.raw(`
    CREATE FUNCTION careflow_knowledge_terms_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN TRUNCATE knowledge_chunk_terms; RETURN NULL; END $$`);
  await knex.raw(`
    CREATE TRIGGER knowledge_chunk_terms_at AFTER TRUNCATE ON knowledge_chunks
    FOR EACH STATEMENT EXECUTE FUNCTION careflow_knowledge_terms_truncate()`);
  await knex.raw(`
    INSERT INTO knowledge_chunk_terms (lexeme, chunk_id, document_id, weight)
    SELECT t.lexeme, c.id, c.document_id, careflow_knowledge_term_weight(cardinality(t.positions))
      FROM knowledge_chunks c, unnest(c.tsv) t
     WHERE c.searchable`);
  // The question's distinct words (parsed as the chunks' are), their rows, summed per chunk. Read
  // from the primary key only (the settings hold inside the function): the planner, not knowing
  // how many of the table's pages VACUUM has marked all-visible, may otherwise pick a scan that
  // visits a heap page a row (retrieval/terms-upkeep.ts keeps them marked). PL/pgSQL keeps the
  // plan; the words are parsed once, not once a chunk.
  await knex.raw(`
    CREATE FUNCTION careflow_knowledge_search(question text, n integer)
    RETURNS TABLE (id integer, document_id integer, score real)
    LANGUAGE plpgsql STABLE SET enable_seqscan = off SET enable_bitmapscan = off
    AS $$
    DECLARE
      words text[] := tsvector_to_array(to_tsvector('careflow_english', question));
    BEGIN
      RETURN QUERY
        SELECT t.chunk_id, t.document_id, (sum(t.weight) / cardinality(words))::real
          FROM knowledge_chunk_terms t
         WHERE t.lexeme = ANY (words)
         GROUP BY t.chunk_id, t.document_id
         ORDER BY 3 DESC, 1
         LIMIT n;
    END $$`);
  await knex.raw("DROP FUNCTION careflow_knowledge_lexical(tsquery, integer)");
  await knex.raw("DROP INDEX knowledge_chunks_tsv_idx");
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== "pg") return;
  await knex.raw("CREATE INDEX knowledge_chunks_tsv_idx ON knowledge_chunks USING GIN (tsv)");
  await knex.raw(`
    CREATE FUNCTION careflow_knowledge_lexical(q tsquery, n integer)
    RETURNS TABLE (id integer, document_id integer, score real)
    LANGUAGE sql STABLE SET random_page_cost = 1.1
    AS $$
      SELECT c.id, c.document_id, ts_rank(c.tsv, q) AS score
        FROM knowledge_chunks c
       WHERE c.searchable AND c.tsv @@ q
       ORDER BY score DESC, c.id
       LIMIT n
    $$`);
  await knex.raw("DROP FUNCTION careflow_knowledge_search(text, integer)");
  for (const t of ["ai", "au", "ad", "at"]) await knex.raw(`DROP TRIGGER knowledge_chunk_terms_${t} ON knowledge_chunks`);
  await knex.raw("DROP FUNCTION careflow_knowledge_terms_truncate()");
  await knex.raw("DROP FUNCTION careflow_knowledge_terms_sync()");
  await knex.raw("DROP FUNCTION careflow_knowledge_term_weight(integer)");
  await knex.raw("DROP TABLE knowledge_chunk_terms");
}
