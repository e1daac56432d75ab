/**
 * Executions in the store: their ids, their rows written by group commit (run-write-queue.ts),
 * and the reads and claims of parked runs.
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";
import { earliestResume, parseRow, selectExecutions, whereStatus, type ExecutionRow } from "./execution-rows";
import { SnapshotIds } from "./snapshot-ids";
import type { GraphSnapshot } from "./graph-snapshot";
import type { RunState, Waiting } from "./run-state";
import type { ExecutionWriter } from "./writers/execution-writer";
import { LocalRunIds, SequenceRunIds, type RunIds } from "./run-ids";
import { RunWriteQueue } from "./run-write-queue";
import { systemClock, type Clock } from "../../../../platform/core/clock";

export { WRITE_DELAY_MS } from "./run-write-queue";

/**
 * The engine writes executions, so their ids are handed out here (run-ids.ts) and rows are
 * written in batches, instead of a round trip per run. In a cluster (`owner` set: this
 * instance's id) the claims take a run over for this instance, and the writer writes only
 * the runs still this instance's.
 */
export class ExecutionStore {
  /** The runs waiting to be written, and their writing. */
  private readonly queue: RunWriteQueue;
  private readonly snapshots: SnapshotIds;
  private readonly ids: RunIds;
  /** Columns a claim sets besides the run's own: its new owner, in a cluster. */
  private readonly claimedBy: { instance_id?: string };
  private readonly owner: string | null;

  constructor(
    private readonly db: Knex,
    write: ExecutionWriter,
    private readonly now: () => string,
    onError: (err: unknown, runs: number[]) => void,
    /** This instance's id when the cluster is on; null for one instance. */
    owner: string | null = null,
    /**
     * Times the write delay: the system clock, never the app's (a test app on a manual clock
     * still writes its runs); a test of the batching itself moves a manual one.
     */
    batchClock: Clock = systemClock,
  ) {
    this.snapshots = new SnapshotIds(now, owner !== null);
    this.queue = new RunWriteQueue(write, this.snapshots, now, onError, batchClock);
    this.ids = owner === null ? new LocalRunIds() : new SequenceRunIds();
    this.claimedBy = owner === null ? {} : { instance_id: owner };
    this.owner = owner;
  }

  async init(): Promise<void> {
    await this.ids.init(this.db);
    await this.snapshots.init(this.db);
  }

  /** Can `create` give an id now? Always for one instance; a cluster instance fetches them as runs start (`reserveIds`). */
  hasId(): boolean {
    return this.ids.available();
  }

  reserveIds(): Promise<void> {
    return this.ids.reserve();
  }

  /** Give a new run its id and queue its row (written within the delay, or when it parks or ends). */
  create(s: Omit<RunState, "id">): RunState {
    // The engine hands over a fresh object: giving it its id in place saves a copy per run.
    const run = s as RunState;
    run.id = this.ids.next();
    this.queue.add(run);
    return run;
  }

  /** Queue a run's progress: a run lost in a crash fails on restart anyway. */
  touch(s: RunState): void {
    this.queue.touch(s);
  }

  /** Write a run on the next tick and resolve once it is durable (a run parks or ends). */
  save(s: RunState): Promise<void> {
    return this.queue.save(s);
  }

  /** Runs whose changes wait to be written (GET /metrics reads it). */
  get queuedRuns(): number {
    return this.queue.queuedRuns;
  }

  /** Resolves once the run's queued state is in the store (at once when nothing is queued). */
  whenWritten(id: number): Promise<void> {
    return this.queue.whenWritten(id);
  }

  /** Resolves once every queued run of these rules is in the store (gates read their event logs). */
  whenRulesWritten(ruleIds: readonly number[]): Promise<void> {
    return this.queue.whenRulesWritten(ruleIds);
  }

  /** Resolves once everything queued so far is in the store; runs queued later do not hold it up. */
  flushQueued(): Promise<void> {
    return this.queue.flushQueued();
  }

  /** Write until nothing is queued (the engine is stopping, no run starts any more). */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  async get(id: number): Promise<ExecutionRow | undefined> {
    await this.whenWritten(id).catch(() => undefined);
    const row = await selectExecutions(this.db).where("we.id", id).first();
    return row ? parseRow(row) : undefined;
  }

  /** Parked runs as they stand, to be held until they are due (see the engine's armResume). */
  async readParked(ids: readonly number[]): Promise<ExecutionRow[]> {
    const rows: Array<Record<string, unknown>> = await selectExecutions(this.db).whereIn("we.id", ids).where("we.status", "waiting");
    // Runs of one rule version share a snapshot: parse it once.
    const graphs = new Map<unknown, GraphSnapshot>();
    return rows.map((raw) => {
      let graph = graphs.get(raw.graph);
      if (!graph) graphs.set(raw.graph, (graph = fromJsonText(raw.graph as string, {} as GraphSnapshot)));
      return parseRow(raw, { graph });
    });
  }

  /**
   * Claim many parked runs at once (those whose timers fell due together): each run only if
   * it is still parked and due by `dueBy` (a run answered and parked again meanwhile waits for
   * its new time). The claim writes, in the same statement, the branches that stay parked
   * (`remaining`) and their deadline: a claimed branch is no longer parked in the store, so a
   * stop right after the claim can never resume it a second time. Returns the ids claimed.
   */
  async claimDue(claims: readonly ResumeClaim[], dueBy: string): Promise<number[]> {
    const now = this.now();
    const claimed: number[] = [];
    if (this.owner !== null) return this.claimSeen(claims, dueBy, now);
    const plain = claims.filter((c) => c.remaining.length === 0).map((c) => c.id);
    if (plain.length) {
      const rows: Array<{ id: number | string }> = await this.db("workflow_executions")
        .whereIn("id", plain)
        .where({ status: "waiting" })
        .where("resume_at", "<=", dueBy)
        .update({ status: "running", resume_at: null, waiting: null, updated_at: now, ...this.claimedBy })
        .returning("id");
      claimed.push(...rows.map((r) => Number(r.id)));
    }
    // A run with another branch still parked (rare): its own deadline and list.
    for (const c of claims.filter((c) => c.remaining.length > 0)) {
      const n = await this.db("workflow_executions")
        .where({ id: c.id, status: "waiting" })
        .where("resume_at", "<=", dueBy)
        .update({ status: "running", ...parkedColumns(c.remaining), updated_at: now, ...this.claimedBy });
      if (Number(n) === 1) claimed.push(c.id);
    }
    return claimed;
  }

  /**
   * Claim a parked run for resumption (an answer, a cancel); exactly one claimer wins, and the
   * claimed branch leaves the store's parked list. In a cluster, `seen` (the row's `updated_at`
   * as read) makes it claim only the parking it read, not one another instance made since.
   */
  async claimResume(id: number, remaining: readonly Waiting[], seen?: string): Promise<boolean> {
    const q = this.db("workflow_executions").where({ id, status: "waiting" });
    if (this.owner !== null && seen !== undefined) q.where("updated_at", seen);
    const n = await q.update({ status: "running", ...parkedColumns(remaining), updated_at: this.now(), ...this.claimedBy });
    return Number(n) === 1;
  }

  /**
   * A cancel asked here of a run another cluster instance is running: recorded on its row for
   * that instance to act on (`cancelRequests`). False when the run is not running (any more).
   */
  async requestCancel(id: number): Promise<boolean> {
    const n = await whereStatus(this.db("workflow_executions"), ["running"]).where({ id }).update({ cancel_requested_at: this.now() });
    return Number(n) === 1;
  }

  /** The unfinished runs of this cluster instance whose cancel was asked through another one. */
  async cancelRequests(): Promise<number[]> {
    const rows: Array<{ id: number | string }> = await whereStatus(this.db("workflow_executions"), ["running", "waiting"])
      .where({ instance_id: this.owner })
      .whereNotNull("cancel_requested_at")
      .select("id");
    return rows.map((r) => Number(r.id));
  }

  /**
   * A cluster instance's claimDue: each run only as it was read (`seen`). Between reading a
   * parked run and claiming it, another instance may have claimed it (an answer), moved it on
   * and parked it again; claiming that parking with the copy read before would run steps twice.
   */
  private async claimSeen(claims: readonly ResumeClaim[], dueBy: string, now: string): Promise<number[]> {
    const claimed: number[] = [];
    const plain = claims.filter((c) => c.remaining.length === 0);
    if (plain.length) {
      const result = (await this.db.raw(
        `update workflow_executions as t set status = 'running', resume_at = null, waiting = null, updated_at = ?, instance_id = ?
         from (values ${plain.map(() => "(?::integer, ?::text)").join(", ")}) as v(id, seen)
         where t.id = v.id and t.status = 'waiting' and t.resume_at <= ? and (v.seen is null or t.updated_at = v.seen)
         returning t.id`,
        [now, this.owner, ...plain.flatMap((c) => [c.id, c.seen ?? null]), dueBy],
      )) as { rows: Array<{ id: number | string }> };
      claimed.push(...result.rows.map((r) => Number(r.id)));
    }
    for (const c of claims.filter((c) => c.remaining.length > 0)) {
      const q = this.db("workflow_executions").where({ id: c.id, status: "waiting" }).where("resume_at", "<=", dueBy);
      if (c.seen !== undefined) q.where("updated_at", c.seen);
      const n = await q.update({ status: "running", ...parkedColumns(c.remaining), updated_at: now, ...this.claimedBy });
      if (Number(n) === 1) claimed.push(c.id);
    }
    return claimed;
  }
}

/** A run to claim, and the branches of it that stay parked after the claim. */
export interface ResumeClaim {
  id: number;
  remaining: readonly Waiting[];
  /** The row's `updated_at` when it was read (a cluster claims only that parking). */
  seen?: string;
}

const parkedColumns = (remaining: readonly Waiting[]): { resume_at: string | null; waiting: string | null } => ({
  resume_at: remaining.length ? earliestResume(remaining) : null,
  waiting: remaining.length ? toJsonText(remaining) : null,
});
