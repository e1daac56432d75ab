/**
 * The parked runs of this instance on their way back. A parked run is read back PREFETCH_MS
 * before it is due and held in memory until then, so that reading it is done by the time it
 * resumes (after a restart, thousands can fall due within a second). At its time it is
 * claimed (still `waiting` → `running`, exactly one claimer wins, also among several
 * instances) and handed on to continue. Answers and cancels drop a held copy (see drop).
 */
import type { CareContext } from "../../context";
import { BatchQueue } from "./batch-queue";
import type { ExecutionStore } from "./execution-store";
import { reviveRun, type RunState, type Waiting } from "./run-state";

const RESUME_CHUNK = 200;
/** How long before its due time a parked run is read back. */
const PREFETCH_MS = 500;

export class HeldRuns {
  private readonly resumeTimers = new Map<number, () => void>();
  private readonly held = new Map<number, RunState>();
  /** Each held run's `updated_at` as read: a cluster instance claims only that parking. */
  private readonly heldSeen = new Map<number, string>();
  /** Runs to read back, and held runs now due; each drained in batches on the next tick. */
  private readonly prefetchQueue = new BatchQueue<number>(
    (ids) => this.prefetch(ids),
    (err, ids) => this.ctx.log.error({ err, runs: ids }, "reading parked runs back failed"),
  );
  private readonly claimQueue = new BatchQueue<number>(
    (ids) => this.claimHeld(ids),
    (err, ids) => this.ctx.log.error({ err, runs: ids }, "resuming parked runs failed"),
  );

  constructor(
    private readonly ctx: CareContext,
    private readonly store: ExecutionStore,
    /** Continues a claimed run from its branches now due. */
    private readonly resume: (run: RunState, due: Waiting[]) => Promise<unknown>,
  ) {}

  /** The run parked until `resumeAt` (earliest of its branches): read it back then. */
  arm(id: number, resumeAt: string): void {
    this.drop(id);
    this.whenClockReaches(id, Date.parse(resumeAt) - PREFETCH_MS, () => this.prefetchQueue.add(id));
  }

  /** An answer or a cancel takes a parked run over: its timers and any held copy go. */
  drop(id: number): void {
    this.resumeTimers.get(id)?.();
    this.resumeTimers.delete(id);
    this.held.delete(id);
    this.heldSeen.delete(id);
  }

  /** No parked run is being read back or claimed. */
  get idle(): boolean {
    return this.prefetchQueue.idle && this.claimQueue.idle;
  }

  /** Disarms every timer and forgets the held copies (the runs stay parked in the store). */
  stop(): void {
    for (const cancel of this.resumeTimers.values()) cancel();
    this.resumeTimers.clear();
    this.held.clear();
    this.heldSeen.clear();
  }

  /** `fn` at `atMs`, or at once when that has passed (a clock only fires what is ahead). */
  private whenClockReaches(id: number, atMs: number, fn: () => void): void {
    if (atMs <= this.ctx.clock.now()) return fn();
    this.resumeTimers.set(
      id,
      this.ctx.clock.at(atMs, () => {
        this.resumeTimers.delete(id);
        fn();
      }),
    );
  }

  private async prefetch(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += RESUME_CHUNK) {
      for (const row of await this.store.readParked(ids.slice(i, i + RESUME_CHUNK))) {
        const run = reviveRun(row, this.ctx.clock.now());
        const due = row.resume_at === null ? NaN : Date.parse(row.resume_at);
        if (Number.isNaN(due)) continue;
        this.held.set(run.id, run);
        this.heldSeen.set(run.id, row.updated_at);
        this.whenClockReaches(run.id, due, () => this.claimQueue.add(run.id));
      }
    }
  }

  /** Claim due held runs in chunks, letting each chunk's runs move on before the next. */
  private async claimHeld(ids: number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += RESUME_CHUNK) {
      if (i > 0) await new Promise((r) => setImmediate(r));
      const now = this.ctx.clock.now();
      const isDue = (w: Waiting) => w.resume_at !== null && Date.parse(w.resume_at) <= now;
      const claims = ids.slice(i, i + RESUME_CHUNK).flatMap((id) => {
        const run = this.held.get(id);
        return run ? [{ id, remaining: run.waiting.filter((w) => !isDue(w)), seen: this.heldSeen.get(id) }] : [];
      });
      const claimed = await this.store.claimDue(claims, new Date(now).toISOString());
      for (const id of claimed) {
        const run = this.held.get(id);
        if (!run) continue;
        this.held.delete(id);
        this.heldSeen.delete(id);
        const due = run.waiting.filter(isDue);
        for (const w of due) if (w.on_timeout_data) Object.assign(run.pipeline_data, w.on_timeout_data);
        await this.resume(run, due);
      }
    }
  }
}
