/**
 * Executions in the store, written by group commit. A run's changes are queued and written
 * with everything else that is queued, in one transaction:
 * - a new run, or progress, within WRITE_DELAY_MS; a run that ends sooner is written once,
 *   already ended (most runs of pure flow steps are);
 * - a run that parks or ends on the next tick, and its caller waits until it is durable;
 * - a run someone asks about (`whenWritten`) on the next tick.
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";
import { earliestResume, parseRow, runWrite, selectExecutions, whereStatus, type ExecutionRow, type RunWrite, type SqlValue } from "./execution-rows";
import { SnapshotIds } from "./snapshot-ids";
import type { GraphSnapshot } from "./graph-snapshot";
import type { RunState, Waiting } from "./run-state";
import type { ExecutionWriter, WriteResult } from "./writers/execution-writer";
import { LocalRunIds, SequenceRunIds, type RunIds } from "./run-ids";
import { systemClock, type Clock } from "../../../../platform/core/clock";

export const WRITE_DELAY_MS = 20;
const MAX_ATTEMPTS = 3;

interface Queued {
  run: RunState;
  /** When it was first queued since its last write (the batch clock's ms). */
  since: number;
  /** Written on the next tick rather than after the delay. */
  urgent: boolean;
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The engine writes executions, so their ids are handed out here (run-ids.ts) and rows are
 * written in batches, instead of a round trip per run. In a cluster (`owner` set: this
 * instance's id) the claims take a run over for this instance, and the writer writes only
 * the runs still this instance's.
 */
export class ExecutionStore {
  private readonly queue = new Map<number, Queued>();
  private readonly waiters = new Map<number, Waiter[]>();
  /** Runs whose rows are not in the store yet. */
  private readonly unwritten = new Set<number>();
  /** Runs in the batch being written now, with their rules. */
  private readonly writing = new Map<number, number>();
  /** Failed writes per run, so that a run the store refuses is not retried forever. */
  private readonly failures = new Map<number, number>();
  private flushing: Promise<void> | null = null;
  private tickArmed = false;
  private cancelTimer: (() => void) | undefined;
  private timerDue = Infinity;
  private readonly snapshots: SnapshotIds;
  private readonly ids: RunIds;
  /** Columns a claim sets besides the run's own: its new owner, in a cluster. */
  private readonly claimedBy: { instance_id?: string };
  private readonly owner: string | null;

  constructor(
    private readonly db: Knex,
    private readonly write: ExecutionWriter,
    private readonly now: () => string,
    private readonly onError: (err: unknown, runs: number[]) => void,
    /** This instance's id when the cluster is on; null for one instance. */
    owner: string | null = null,
    /**
     * Times the write delay: the system clock, never the app's (a test app on a manual clock
     * still writes its runs); a test of the batching itself moves a manual one.
     */
    private readonly batchClock: Clock = systemClock,
  ) {
    this.snapshots = new SnapshotIds(now, owner !== null);
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
    this.unwritten.add(run.id);
    this.enqueue(run, false);
    return run;
  }

  /** Queue a run's progress: a run lost in a crash fails on restart anyway. */
  touch(s: RunState): void {
    this.enqueue(s, false);
  }

  /** Write a run on the next tick and resolve once it is durable (a run parks or ends). */
  save(s: RunState): Promise<void> {
    this.enqueue(s, true);
    return this.waitFor(s.id);
  }

  /** Runs whose changes wait to be written (GET /metrics reads it). */
  get queuedRuns(): number {
    return this.queue.size;
  }

  /** Resolves once the run's queued state is in the store (at once when nothing is queued). */
  whenWritten(id: number): Promise<void> {
    const q = this.queue.get(id);
    if (!q) return this.writing.has(id) ? this.waitFor(id) : Promise.resolve();
    q.urgent = true;
    this.armTick();
    return this.waitFor(id);
  }

  /** Resolves once every queued run of these rules is in the store (gates read their event logs). */
  whenRulesWritten(ruleIds: readonly number[]): Promise<void> {
    const ids: number[] = [];
    for (const [id, q] of this.queue) if (ruleIds.includes(q.run.rule_id)) ids.push(id);
    for (const [id, ruleId] of this.writing) if (ruleIds.includes(ruleId) && !this.queue.has(id)) ids.push(id);
    return ids.length ? Promise.all(ids.map((id) => this.whenWritten(id))).then(() => undefined) : Promise.resolve();
  }

  /**
   * Resolves once everything queued so far is in the store (or its write failed, which the
   * store logs). Runs queued later do not hold it up, so a read under load still answers.
   */
  flushQueued(): Promise<void> {
    const ids = [...this.queue.keys(), ...this.writing.keys()];
    return Promise.all(ids.map((id) => this.whenWritten(id).catch(() => undefined))).then(() => undefined);
  }

  /** Write until nothing is queued (the engine is stopping, no run starts any more). */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.size) {
      for (const q of this.queue.values()) q.urgent = true;
      this.kick();
      await this.flushing?.catch(() => undefined);
    }
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

  // ---- group commit ------------------------------------------------------------------------

  private enqueue(run: RunState, urgent: boolean): void {
    const q = this.queue.get(run.id);
    if (q) {
      q.run = run;
      q.urgent ||= urgent;
    } else this.queue.set(run.id, { run, since: this.batchClock.now(), urgent });
    if (urgent) this.armTick();
    else this.armTimer((q?.since ?? this.batchClock.now()) + WRITE_DELAY_MS);
  }

  private waitFor(id: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const list = this.waiters.get(id);
      if (list) list.push({ resolve, reject });
      else this.waiters.set(id, [{ resolve, reject }]);
    });
  }

  private armTick(): void {
    if (this.tickArmed) return;
    this.tickArmed = true;
    setImmediate(() => {
      this.tickArmed = false;
      this.kick();
    });
  }

  private armTimer(dueAt: number): void {
    if (this.cancelTimer && this.timerDue <= dueAt) return;
    this.cancelTimer?.();
    this.timerDue = dueAt;
    this.cancelTimer = this.batchClock.at(dueAt, () => {
      this.cancelTimer = undefined;
      this.timerDue = Infinity;
      this.kick();
    });
  }

  /** Start a flush unless one is under way (it looks again when it is done). */
  private kick(): void {
    // flush() clears `flushing` when it ends, so it must start after the assignment.
    if (!this.flushing) this.flushing = Promise.resolve().then(() => this.flush());
  }

  private async flush(): Promise<void> {
    try {
      const t = this.batchClock.now();
      const batch: RunWrite[] = [];
      const snapshots: SqlValue[][] = [];
      const runs: RunState[] = [];
      const stamp = this.now();
      for (const [id, q] of this.queue) {
        if (!q.urgent && q.since + WRITE_DELAY_MS > t) continue;
        this.queue.delete(id);
        let snapshotId: number | null = null;
        if (this.unwritten.has(id)) {
          const ref = this.snapshots.refOf(q.run.graph);
          if (ref.row && !snapshots.includes(ref.row)) snapshots.push(ref.row);
          snapshotId = ref.id;
        }
        batch.push(runWrite(q.run, snapshotId, stamp));
        runs.push(q.run);
      }
      if (batch.length) await this.writeBatch(batch, snapshots, runs);
    } finally {
      this.flushing = null;
      // What was held back, or queued while writing, gets its tick or its timer.
      let nextDue = Infinity;
      for (const q of this.queue.values()) {
        if (q.urgent) this.armTick();
        else nextDue = Math.min(nextDue, q.since + WRITE_DELAY_MS);
      }
      if (nextDue !== Infinity) this.armTimer(nextDue);
    }
  }

  private async writeBatch(batch: RunWrite[], snapshots: SqlValue[][], runs: RunState[]): Promise<void> {
    const ids = runs.map((r) => r.id);
    runs.forEach((r) => this.writing.set(r.id, r.rule_id));
    let result: WriteResult | void;
    try {
      result = await this.write({ snapshots, runs: batch });
    } catch (err) {
      this.onError(err, ids);
      ids.forEach((id) => this.writing.delete(id));
      for (const run of runs) {
        const failures = (this.failures.get(run.id) ?? 0) + 1;
        // Retried with the next batch (the run is still in memory), up to MAX_ATTEMPTS.
        if (failures < MAX_ATTEMPTS && !this.queue.has(run.id)) {
          this.failures.set(run.id, failures);
          this.enqueue(run, false);
        } else this.failures.delete(run.id);
        this.settleWaiters(run.id, err);
      }
      return;
    }
    if (result) {
      this.snapshots.resolved(result.snapshotIds);
      // Recovered by a survivor while this instance was taken for dead: its record is theirs now.
      if (result.notOwned.length) this.onError(new Error("runs recovered by another instance were not written"), result.notOwned);
    } else this.snapshots.written(snapshots.map((row) => Number(row[0])));
    for (const id of ids) {
      this.writing.delete(id);
      this.failures.delete(id);
      this.unwritten.delete(id);
      this.settleWaiters(id);
    }
  }

  private settleWaiters(id: number, err?: unknown): void {
    if (this.queue.has(id) && err === undefined) {
      // Queued again while its batch was being written: its waiters want the newer state.
      if (this.waiters.has(id)) {
        this.queue.get(id)!.urgent = true;
        this.armTick();
      }
      return;
    }
    const list = this.waiters.get(id);
    if (!list) return;
    this.waiters.delete(id);
    for (const w of list) {
      if (err === undefined) w.resolve();
      else w.reject(err);
    }
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
