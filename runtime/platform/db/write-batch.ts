/**
 * The writes of one transaction that neither read nor touch what the others write, sent
 * together when the transaction has decided them all.
 *
 * On PostgreSQL every statement is a round trip, and on a busy process each waits for the event
 * loop to come round (issue 26: a tracking batch was nine statements one after another, 1.3 to
 * 3.8 ms each at 2,000 events a second). Here the queued writes go as one statement, each a
 * data-modifying `with` part, inserts as arrays per column (pg-array-insert). PostgreSQL runs
 * every part to completion against the snapshot the statement began with, which is why no
 * part may depend on another's rows. On SQLite a statement costs no round trip: they run one
 * by one in the order queued.
 */
import type { Knex } from "knex";
import { pgArrayInsert } from "./pg-array-insert";
import { isPostgres, type RowInsertOptions, type SqlStatement } from "./insert-sql";
import { insertRows, knexInsertStatement } from "./row-insert";

type Queued = { kind: "insert"; table: string; rows: readonly object[]; opts: RowInsertOptions } | { kind: "query"; query: Knex.QueryBuilder };

export interface WriteBatchOptions {
  /**
   * PostgreSQL: the transaction commits without waiting for the WAL flush (set in the same
   * statement; the setting is read at commit). SQLite has no such setting.
   */
  asyncCommit?: boolean;
}

/** A statement of the batch and the table it inserts into (null: an update or delete). */
type Part = SqlStatement & { into: string | null };

/** Well under PostgreSQL's 65,535 bindings per statement (an insert binds one array per column). */
const BINDINGS_PER_STATEMENT = 30_000;

export class WriteBatch {
  private readonly queued: Queued[] = [];

  constructor(
    private readonly trx: Knex,
    private readonly opts: WriteBatchOptions = {},
  ) {}

  /** Rows into a table, as insertRows writes them (no `returning`: nothing comes back). */
  insert(table: string, rows: readonly object[], opts: Omit<RowInsertOptions, "returning"> = {}): void {
    if (rows.length) this.queued.push({ kind: "insert", table, rows, opts });
  }

  /** An update or delete built on this batch's transaction (`batch.db`), not awaited. */
  query(query: Knex.QueryBuilder): void {
    this.queued.push({ kind: "query", query });
  }

  /** The transaction, to build queued queries on. */
  get db(): Knex {
    return this.trx;
  }

  /** Sends what was queued; a batch runs once. */
  async run(): Promise<void> {
    const queued = this.queued.splice(0);
    if (!isPostgres(this.trx)) {
      for (const q of queued)
        if (q.kind === "insert") await insertRows(this.trx, q.table, q.rows, q.opts);
        else await q.query;
      return;
    }
    const statements: Part[] = [];
    for (const q of queued)
      statements.push(q.kind === "insert" ? { ...(await this.insertOf(q.table, q.rows, q.opts)), into: q.table } : { ...compiled(q.query), into: null });
    const last = this.opts.asyncCommit ? "select set_config('synchronous_commit', 'off', true)" : "select 1";
    if (statements.length === 0) {
      if (this.opts.asyncCommit) await this.trx.raw(last);
      return;
    }
    for (const group of statementGroups(statements)) {
      const parts = group.map((s, i) => `w${i} as (${s.sql})`).join(", ");
      await this.trx.raw(`with ${parts} ${last}`, group.flatMap((s) => s.bindings) as Knex.RawBinding[]);
    }
  }

  private async insertOf(table: string, rows: readonly object[], opts: RowInsertOptions): Promise<SqlStatement> {
    return (await pgArrayInsert(this.trx, table, rows, opts)) ?? knexInsertStatement(this.trx, table, rows, opts);
  }
}

function compiled(query: Knex.QueryBuilder): SqlStatement {
  const { sql, bindings } = query.toSQL();
  return { sql, bindings: [...bindings] };
}

/**
 * Consecutive statements grouped under the bindings limit (a statement over it stands alone).
 * A second insert into a table starts a new group: the parts of one statement run in no set
 * order, and rows inserted later must get later ids (history and frames are read in id order).
 */
function statementGroups(statements: readonly Part[]): Part[][] {
  const groups: Part[][] = [];
  let current: Part[] = [];
  let bound = 0;
  let tables = new Set<string>();
  for (const s of statements) {
    if (current.length && (bound + s.bindings.length > BINDINGS_PER_STATEMENT || (s.into !== null && tables.has(s.into)))) {
      groups.push(current);
      current = [];
      bound = 0;
      tables = new Set();
    }
    current.push(s);
    bound += s.bindings.length;
    if (s.into !== null) tables.add(s.into);
  }
  if (current.length) groups.push(current);
  return groups;
}
