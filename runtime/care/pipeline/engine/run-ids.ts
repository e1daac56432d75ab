/**
 * Where a new run's id comes from. Ids are handed out in process, so that a run is written by
 * group commit without a round trip first. One instance alone counts on from the store's
 * largest id; instances of a cluster share the table's sequence, each taking a block of ids at
 * a time (a run's id then says nothing of its order across instances: lists sort by time).
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

/** Ids taken from the sequence at once; the next block is fetched when a fifth is left. */
const BLOCK = 100;

/** A cluster instance: blocks of ids from `workflow_executions`' own sequence (PostgreSQL). */
export class SequenceRunIds implements RunIds {
  private ids: number[] = [];
  private fetching: Promise<void> | null = null;
  private db: Knex | null = null;

  async init(db: Knex): Promise<void> {
    this.db = db;
    await this.reserve();
  }

  available(): boolean {
    return this.ids.length > 0;
  }

  next(): number {
    const id = this.ids.shift();
    if (id === undefined) throw new Error("no run id at hand: reserve some first");
    if (this.ids.length < BLOCK / 5) void this.reserve().catch(() => undefined);
    return id;
  }

  reserve(): Promise<void> {
    if (this.ids.length >= BLOCK / 5) return Promise.resolve();
    this.fetching ??= this.fetch().finally(() => (this.fetching = null));
    return this.fetching;
  }

  private async fetch(): Promise<void> {
    const result = (await this.db!.raw(`select nextval(pg_get_serial_sequence('workflow_executions', 'id')) as id from generate_series(1, ?)`, [BLOCK])) as {
      rows: Array<{ id: string | number }>;
    };
    this.ids.push(...result.rows.map((r) => Number(r.id)).sort((a, b) => a - b));
  }
}
