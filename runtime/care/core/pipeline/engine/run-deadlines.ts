/**
 * Whole-run deadlines of the runs in progress, on one timer armed at the earliest. A timer
 * per run cost more than the steps of a quick run; most runs end long before their deadline,
 * and when the timer fires for one that already ended it only looks for the next.
 */
import type { Clock } from "../../../../platform/core/clock";

export class RunDeadlines {
  private readonly due = new Map<number, number>();
  private disarm: (() => void) | undefined;
  private armedAt = Infinity;

  constructor(
    private readonly clock: Clock,
    private readonly onExpired: (runId: number) => void,
  ) {}

  set(runId: number, atMs: number): void {
    this.due.set(runId, atMs);
    if (atMs < this.armedAt) this.arm(atMs);
  }

  clear(runId: number): void {
    this.due.delete(runId);
  }

  stop(): void {
    this.disarm?.();
    this.disarm = undefined;
    this.armedAt = Infinity;
    this.due.clear();
  }

  private arm(atMs: number): void {
    this.disarm?.();
    this.armedAt = atMs;
    this.disarm = this.clock.at(atMs, () => this.fire());
  }

  private fire(): void {
    this.disarm = undefined;
    this.armedAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [id, at] of this.due) {
      if (at <= now) {
        this.due.delete(id);
        this.onExpired(id);
      } else if (at < next) next = at;
    }
    if (next !== Infinity && next < this.armedAt) this.arm(next);
  }
}
