/**
 * What one stream's messages do, in three steps the consumer runs for each: decode (a failure
 * is a dead letter), check (the original's drop rules: stale or incomplete messages are
 * dropped, counted and logged), plan (reads outside the transaction: SQLite has one
 * connection) and commit (writes inside the transaction that also marks the message applied).
 * What commit returns runs once the transaction committed: bus events, live frames. A stream
 * with many messages a second also commits many plans with a few statements (commitMany).
 */
import type { Knex } from "knex";
import type { WriteBatch } from "../../platform/db/write-batch";
import type { DecodeResult } from "./cts-codec";

export type AfterCommit = () => void;

export interface Applier<T, P, R = unknown> {
  decode(data: Uint8Array): DecodeResult<T>;
  /** Why the message is dropped, or null to apply it. */
  check(value: T, nowMs: number): string | null;
  /** The idempotency key (event_id, revision_id, ...); null: the stream sequence is. */
  key(value: T): string | null;
  /**
   * Reads ahead, once for a whole batch, what plan would read message by message (warming the
   * applier's caches). Absent: nothing to read ahead. A failure is left for plan to meet and report.
   */
  prepare?(values: readonly T[]): Promise<void>;
  plan(value: T): Promise<P>;
  /**
   * Writes the plan's change in `trx`, directly or queued on `batch` (sent together before the
   * transaction commits: platform/db/write-batch).
   */
  commit(trx: Knex, plan: P, batch: WriteBatch): Promise<AfterCommit[]>;
  /**
   * What commitMany reads in the transaction, asked for every plan of the batch (a redelivery's
   * too) together with the check of which messages are new: on PostgreSQL both statements are
   * sent before either answer is awaited, one wait on the event loop instead of two.
   */
  readForCommit?(trx: Knex, plans: readonly P[]): Promise<R>;
  /** The same as commit for each plan in order, with fewer round trips; absent: commit each. `read`: readForCommit's answer. */
  commitMany?(trx: Knex, plans: readonly P[], batch: WriteBatch, read?: R): Promise<AfterCommit[]>;
  /**
   * True for a stream of many short-lived messages (tracking events): on PostgreSQL its
   * transactions commit without waiting for the WAL flush (docs/decisions.md, "Tracking events
   * commit asynchronously on PostgreSQL"). Absent: every commit is flushed before the ack.
   */
  readonly asyncCommit?: boolean;
  /** Runs a batch's plan and commit in turn with other streams' batches that read what it writes; absent: at once. */
  inTurn?<R>(work: () => Promise<R>): Promise<R>;
}

/** The name of a proto enum value without its prefix, lowercase (`DEMENTIA_SIGNAL_KIND_PACING` → `pacing`); null for UNSPECIFIED or an unknown number. */
export function enumName(value: string | number, prefix: string): string | null {
  if (typeof value !== "string" || !value.startsWith(prefix)) return null;
  const name = value.slice(prefix.length).toLowerCase();
  return name === "unspecified" || name === "" ? null : name;
}

/** Identities that place nobody. */
export const isKnownIdentity = (id: string | null | undefined): id is string => typeof id === "string" && id.trim() !== "" && !/^unknown/i.test(id.trim());
