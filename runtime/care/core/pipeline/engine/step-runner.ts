/**
 * Runs one handler with the per-step timeout and an AbortSignal. A step that times out is
 * a failed step (the run goes on); a handler that throws is reported as thrown (the run
 * fails).
 */
import type { CareServices } from "../../../../../nodes/_kit/care-services";
import type { HandlerContext, StepHandler, StepInput, StepResult } from "../../../../../nodes/_kit/handler-types";
import type { Clock } from "../../../../platform/core/clock";
import type { Logger } from "../../../../platform/core/logger";
import type { CareContext } from "../../context";

export type StepOutcome =
  | { kind: "result"; result: StepResult; elapsed_ms: number }
  | { kind: "timeout"; elapsed_ms: number; error: string }
  | { kind: "threw"; elapsed_ms: number; error: string };

/**
 * What a handler is given. Its signal is built on first use (most steps never look at it)
 * and stops the handler for either reason: its own timeout, or the run ending (cancel, run
 * timeout).
 */
class StepContext implements HandlerContext {
  private controller: AbortController | undefined;
  private combined: AbortSignal | undefined;

  constructor(
    readonly clock: Clock,
    readonly log: Logger,
    readonly services: CareServices,
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

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as { then?: unknown } | null)?.then === "function";

/**
 * A handler that returns its result directly is done within this call (no promise, no
 * timer); one that returns a promise races it against the step timeout.
 */
export function runStep<C>(
  ctx: CareContext,
  services: CareServices,
  handler: StepHandler<C>,
  input: StepInput,
  config: C,
  timeoutMs: number,
  runSignal?: () => AbortSignal,
): StepOutcome | Promise<StepOutcome> {
  const t0 = performance.now();
  const startedAt = ctx.clock.now();
  const hctx = new StepContext(ctx.clock, ctx.log, services, runSignal);
  let returned: StepResult | Promise<StepResult>;
  try {
    returned = handler(hctx, input, config);
  } catch (err) {
    return threw(err, t0);
  }
  if (!isPromise(returned)) return { kind: "result", result: returned, elapsed_ms: performance.now() - t0 };
  return raceTimeout(ctx, hctx, Promise.resolve(returned), startedAt + timeoutMs, timeoutMs, t0);
}

async function raceTimeout(
  ctx: CareContext,
  hctx: StepContext,
  pending: Promise<StepResult>,
  dueAt: number,
  timeoutMs: number,
  t0: number,
): Promise<StepOutcome> {
  let disarm: (() => void) | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    disarm = ctx.clock.at(dueAt, () => resolve("timeout"));
  });
  try {
    const winner = await Promise.race([pending, timedOut]);
    const elapsed_ms = performance.now() - t0;
    if (winner === "timeout") {
      hctx.abort(new Error("step timed out"));
      return { kind: "timeout", elapsed_ms, error: `timed out after ${Math.round(timeoutMs / 1000)} s` };
    }
    return { kind: "result", result: winner, elapsed_ms };
  } catch (err) {
    return threw(err, t0);
  } finally {
    disarm?.();
  }
}

const threw = (err: unknown, t0: number): StepOutcome => ({
  kind: "threw",
  elapsed_ms: performance.now() - t0,
  error: err instanceof Error ? err.message : String(err),
});
