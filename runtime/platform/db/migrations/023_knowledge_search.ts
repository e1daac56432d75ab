/**
 * The knowledge search's indexes over `knowledge_chunks` (care/services/knowledge/retrieval), one per
 * dialect: SQLite gets an FTS5 table (porter stemming, diacritics folded) kept in step by
 * triggers; PostgreSQL a generated tsvector column with a GIN index, in `careflow_english`:
 * the `english` configuration's stemming (as porter's) without its stop words, which drop
 * "on" and "off" (how a heater is switched is exactly what the family writes down). Both get the chunk's vector (float32 little-endian bytes, null
 * until embedded), the `llm.models` id that made it, and `searchable`: whether the chunk's
 * document is approved (the documents module says so through retrieval, so the search never
 * reads the documents table).
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("knowledge_chunks", (t) => {
    t.boolean("searchable").notNullable().defaultTo(false);
    t.binary("embedding").nullable();
    t.string("embedding_model", 100).nullable();
    t.index(["searchable"]);
  });
  if (knex.client.config.client === "pg") {
    // A snowball dictionary without a StopWords file keeps every word (no extension, no superuser).
    await knex.raw("CREATE TEXT SEARCH DICTIONARY careflow_english_stem (TEMPLATE = snowball, Language = english)");
    await knex.raw("CREATE TEXT SEARCH CONFIGURATION careflow_english (COPY = english)");
    await knex.raw(
      "ALTER TEXT SEARCH CONFIGURATION careflow_english ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH careflow_english_stem",
    );
    await knex.raw("ALTER TABLE knowledge_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('careflow_english', text)) STORED");
    await knex.raw("CREATE INDEX knowledge_chunks_tsv_idx ON knowledge_chunks USING GIN (tsv)");
    // The planner's default costs (random_page_cost 4, for spinning disks) pick a sequential scan
    // that reads every chunk's tsvector once a question's words match a few percent of them; the
    // GIN index is 3–5 times faster there (docs/decisions.md). The setting holds inside this
    // function only, so the search costs one round trip and nothing else is affected.
    await knex.raw(`
      CREATE FUNCTION careflow_knowledge_lexical(q tsquery, n integer)
      RETURNS TABLE (id integer, document_id integer, score real)
      LANGUAGE sql STABLE SET random_page_cost = 1.1
      AS $$
        SELECT c.id, c.document_id, ts_rank_cd(c.tsv, q) AS score
          FROM knowledge_chunks c
         WHERE c.searchable AND c.tsv @@ q
         ORDER BY score DESC, c.id
         LIMIT n
      $$`);
    return;
  }
  await knex.raw(
    "CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5(text, content='knowledge_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
  );
  await knex.raw(
    "CREATE TRIGGER knowledge_chunks_fts_ai AFTER INSERT ON knowledge_chunks BEGIN INSERT INTO knowledge_chunks_fts(rowid, text) VALUES (new.id, new.text); END",
  );
  await knex.raw(
    "CREATE TRIGGER knowledge_chunks_fts_ad AFTER DELETE ON knowledge_chunks BEGIN INSERT INTO knowledge_chunks_fts(knowledge_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
  );
  await knex.raw(
    "CREATE TRIGGER knowledge_chunks_fts_au AFTER UPDATE OF text ON knowledge_chunks BEGIN INSERT INTO knowledge_chunks_fts(knowledge_chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); INSERT INTO knowledge_chunks_fts(rowid, text) VALUES (new.id, new.text); END",
  );
  await knex.raw("INSERT INTO knowledge_chunks_fts(knowledge_chunks_fts) VALUES ('rebuild')");
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === "pg") {
    await knex.raw("DROP FUNCTION IF EXISTS careflow_knowledge_lexical(tsquery, integer)");
    await knex.raw("DROP INDEX IF EXISTS knowledge_chunks_tsv_idx");
    await knex.raw("ALTER TABLE knowledge_chunks DROP COLUMN IF EXISTS tsv");
    await knex.raw("DROP TEXT SEARCH CONFIGURATION IF EXISTS careflow_english");
    await knex.raw("DROP TEXT SEARCH DICTIONARY IF EXISTS careflow_english_stem");
  } else {
    for (const t of ["ai", "ad", "au"]) await knex.raw(`DROP TRIGGER IF EXISTS knowledge_chunks_fts_${t}`);
    await knex.raw("DROP TABLE IF EXISTS knowledge_chunks_fts");
  }
  await knex.schema.alterTable("knowledge_chunks", (t) => {
    t.dropIndex(["searchable"]);
    t.dropColumn("searchable");
    t.dropColumn("embedding");
    t.dropColumn("embedding_model");
  });
}
