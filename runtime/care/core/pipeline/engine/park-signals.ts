/**
 * Who waits for a run to park a branch at a step. An answer to an interactive prompt can
 * arrive while the prompt step is still running (the prompt goes out before the step
 * returns); instead of asking again and again, the answer waits here until the engine parks
 * that branch (true) or the run ends without parking it (false).
 */
type Resolve = (parked: boolean) => void;

export class ParkSignals {
  private readonly waiting = new Map<number, Map<number, Resolve[]>>();

  /** Resolves when the run parks at the step (true), ends (false), or after `timeoutMs` (false). */
  wait(runId: number, stepId: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let settled = false;
      const once: Resolve = (parked) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(parked);
      };
      // A liveness guard only: the engine always signals a park or an end.
      const timer = setTimeout(() => {
        this.remove(runId, stepId, once);
        once(false);
      }, timeoutMs);
      timer.unref?.();
      let steps = this.waiting.get(runId);
      if (!steps) this.waiting.set(runId, (steps = new Map()));
      steps.set(stepId, [...(steps.get(stepId) ?? []), once]);
    });
  }

  /** The run parked a branch at this step. */
  parked(runId: number, stepId: number): void {
    const steps = this.waiting.get(runId);
    const resolves = steps?.get(stepId);
    if (!steps || !resolves) return;
    steps.delete(stepId);
    if (steps.size === 0) this.waiting.delete(runId);
    for (const r of resolves) r(true);
  }

  /** The run ended (or stopped running here): nobody waiting for it will see a park. */
  ended(runId: number): void {
    const steps = this.waiting.get(runId);
    if (!steps) return;
    this.waiting.delete(runId);
    for (const resolves of steps.values()) for (const r of resolves) r(false);
  }

  private remove(runId: number, stepId: number, resolve: Resolve): void {
    const steps = this.waiting.get(runId);
    const left = (steps?.get(stepId) ?? []).filter((r) => r !== resolve);
    if (!steps) return;
    if (left.length) steps.set(stepId, left);
    else steps.delete(stepId);
    if (steps.size === 0) this.waiting.delete(runId);
  }
}
