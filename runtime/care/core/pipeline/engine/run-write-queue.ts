/**
 * Group commit: a run's changes are queued and written with everything else that is queued, in
 * one transaction:
 * - a new run, or progress, within WRITE_DELAY_MS; a run that ends sooner is written once,
 *   already ended (most runs of pure flow steps are);
 * - a run that parks or ends on the next tick, and its caller waits until it is durable;
 * - a run someone asks about (`whenWritten`) on the next tick.
 * A write that fails is retried with the next batch, up to MAX_ATTEMPTS, and its waiters told.
 */
import type { RunState } from "./run-state";
import type { RunWrite, SqlValue } from "./execution-rows";
import { runWrite } from "./execution-rows";
import type { SnapshotIds } from "./snapshot-ids";
import type { ExecutionWriter, WriteResult } from "./writers/execution-writer";
import type { Clock } from "../../../../platform/core/clock";

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

export class RunWriteQueue {
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

  constructor(
    private readonly write: ExecutionWriter,
    private readonly snapshots: SnapshotIds,
    private readonly now: () => string,
    private readonly onError: (err: unknown, runs: number[]) => void,
    /** Times the write delay (the system clock but in a test of the batching itself). */
    private readonly batchClock: Clock,
  ) {}

  /** A new run: its row (with its graph's snapshot, when new) is written within the delay, or when it parks or ends. */
  add(run: RunState): void {
    this.unwritten.add(run.id);
    this.enqueue(run, false);
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
