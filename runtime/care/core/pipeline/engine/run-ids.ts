/**
 * Where a new run's id comes from. Ids are handed out in process, so that a run is written by
 * group commit without a round trip first. One instance alone counts on from the store's
 * largest id; instances of a cluster share the table's sequence.
 */
import type { Knex } from "knex";

export interface RunIds {
  init(db: Knex): Promise<void>;
  /** Is an id at hand? (`reserve` fetches more when not.) */
  available(): boolean;
  /** The next id; only when one is available. */
  next(): number;
  /** Resolves once more ids are at hand (or are being fetched by then). */
  reserve(): Promise<void>;
}

/** One instance: the next id after the store's largest. */
export class LocalRunIds implements RunIds {
  private nextId = 1;

  async init(db: Knex): Promise<void> {
    const [{ m: maxRun }] = await db("workflow_executions").max({ m: "id" });
    this.nextId = Number(maxRun ?? 0) + 1;
  }

  available(): boolean {
    return true;
  }

  next(): number {
    return this.nextId++;
  }

  reserve(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A cluster instance: ids from `workflow_executions`' own sequence (PostgreSQL), fetched when
 * runs start, one statement for all the runs that start in the same turn. None are kept ahead:
 * lists show runs newest first by id, and ids reserved ahead by one instance would sort its runs
 * above the newer runs of the others.
 */
export class SequenceRunIds implements RunIds {
  private readonly ids: number[] = [];
  /** Runs waiting for an id in the fetch being gathered. */
  private wanted = 0;
  private gathering: Promise<void> | null = null;
  private db: Knex | null = null;

  async init(db: Knex): Promise<void> {
    this.db = db;
  }

  available(): boolean {
    return this.ids.length > 0;
  }

  next(): number {
    const id = this.ids.shift();
    if (id === undefined) throw new Error("no run id at hand: reserve one first");
    return id;
  }

  reserve(): Promise<void> {
    this.wanted++;
    this.gathering ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const n = this.wanted;
      this.wanted = 0;
      this.gathering = null;
      return this.fetch(n);
    });
    return this.gathering;
  }

  private async fetch(n: number): Promise<void> {
    const result = (await this.db!.raw(`select nextval(pg_get_serial_sequence('workflow_executions', 'id')) as id from generate_series(1, ?)`, [n])) as {
      rows: Array<{ id: string | number }>;
    };
    this.ids.push(...result.rows.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
}
