/**
 * Runs one handler with the per-step timeout and an AbortSignal. A step that times out is
 * a failed step (the run goes on); a handler that throws is reported as thrown (the run
 * fails).
 */
import type { HandlerContext, StepHandler, StepInput, StepResult } from "../../../nodes/_kit/handler-types";
import type { Clock } from "../../core/clock";
import type { Logger } from "../../core/logger";
import type { AppContext } from "../../context";

export type StepOutcome =
  | { kind: "result"; result: StepResult; elapsed_ms: number }
  | { kind: "timeout"; elapsed_ms: number; error: string }
  | { kind: "threw"; elapsed_ms: number; error: string };

/**
 * What a handler is given. Its signal is built on first use (most steps never look at it)
 * and stops the handler for either reason: its own timeout, or the run ending (cancel, run
 * timeout).
 */
class StepContext implements HandlerContext<AppContext> {
  private controller: AbortController | undefined;
  private combined: AbortSignal | undefined;

  constructor(
    readonly clock: Clock,
    readonly log: Logger,
    readonly services: AppContext,
    private readonly runSignal: (() => AbortSignal) | undefined,
  ) {}

  get signal(): AbortSignal {
    if (!this.combined) {
      this.controller = new AbortController();
      this.combined = this.runSignal ? AbortSignal.any([this.controller.signal, this.runSignal()]) : this.controller.signal;
    }
    return this.combined;
  }

  abort(reason: Error): void {
    this.controller?.abort(reason);
  }
}

const NOT_YET = Symbol("not settled yet");
const notYet = Promise.resolve(NOT_YET);

export async function runStep<C>(
  ctx: AppContext,
  handler: StepHandler<C, AppContext>,
  input: StepInput,
  config: C,
  timeoutMs: number,
  runSignal?: () => AbortSignal,
): Promise<StepOutcome> {
  const t0 = performance.now();
  const startedAt = ctx.clock.now();
  const hctx = new StepContext(ctx.clock, ctx.log, ctx, runSignal);
  try {
    const pending = handler(hctx, input, config);
    // A handler that has already settled (pure flow steps do) needs no timer: a promise
    // that is settled wins a race against another settled one listed after it.
    const first = await Promise.race([pending, notYet]);
    if (first !== NOT_YET) return { kind: "result", result: first, elapsed_ms: performance.now() - t0 };
    let disarm: (() => void) | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      disarm = ctx.clock.at(startedAt + timeoutMs, () => resolve("timeout"));
    });
    try {
      const winner = await Promise.race([pending, timedOut]);
      const elapsed_ms = performance.now() - t0;
      if (winner === "timeout") {
        hctx.abort(new Error("step timed out"));
        return { kind: "timeout", elapsed_ms, error: `timed out after ${Math.round(timeoutMs / 1000)} s` };
      }
      return { kind: "result", result: winner, elapsed_ms };
    } finally {
      disarm?.();
    }
  } catch (err) {
    return { kind: "threw", elapsed_ms: performance.now() - t0, error: err instanceof Error ? err.message : String(err) };
  }
}
