/**
 * PostgreSQL only: the lexical search reads a question's words from the primary key of
 * `knowledge_chunk_terms` alone (an index-only scan) where the table's pages are marked
 * all-visible, which VACUUM does; elsewhere it visits a heap page for every row, as slowly as
 * the search it replaced (docs/decisions.md, issue 25). Autovacuum gets there in its own time;
 * after chunks' words change, this VACUUMs the table in the background (it reads only the pages
 * changed since the last time), one run at a time, once more if words changed meanwhile.
 */
import type { Knex } from "knex";

const runs = new WeakMap<Knex, { again: boolean }>();

export function tidyTerms(db: Knex): void {
  // VACUUM cannot run inside a transaction; the next write outside one tidies.
  if (db.client.config.client !== "pg" || (db as Knex & { isTransaction?: boolean }).isTransaction) return;
  const running = runs.get(db);
  if (running) {
    running.again = true;
    return;
  }
  const run = { again: true };
  runs.set(db, run);
  void (async () => {
    while (run.again) {
      run.again = false;
      // A failure (the pool closing, a lock) only leaves it to autovacuum.
      await db.raw("VACUUM (SKIP_LOCKED) knowledge_chunk_terms").catch(() => undefined);
    }
    runs.delete(db);
  })();
}
