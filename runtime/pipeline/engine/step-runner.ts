/**
 * Runs one handler with the per-step timeout and an AbortSignal. A step that times out is
 * a failed step (the run goes on); a handler that throws is reported as thrown (the run
 * fails).
 */
import type { HandlerContext, StepHandler, StepInput, StepResult } from "../../../nodes/_kit/handler-types";
import type { AppContext } from "../../context";

export type StepOutcome =
  | { kind: "result"; result: StepResult; elapsed_ms: number }
  | { kind: "timeout"; elapsed_ms: number; error: string }
  | { kind: "threw"; elapsed_ms: number; error: string };

export async function runStep<C>(
  ctx: AppContext,
  handler: StepHandler<C, AppContext>,
  input: StepInput,
  config: C,
  timeoutMs: number,
  runSignal?: AbortSignal,
): Promise<StepOutcome> {
  let controller: AbortController | undefined;
  let signal: AbortSignal | undefined;
  const t0 = performance.now();
  const hctx = { clock: ctx.clock, log: ctx.log, services: ctx } as HandlerContext<AppContext>;
  // Built on first use: most steps never look at it. It stops the handler for either
  // reason: its own timeout, or the run ending (cancel, run timeout).
  Object.defineProperty(hctx, "signal", {
    get: () => {
      if (!signal) {
        controller = new AbortController();
        signal = runSignal ? AbortSignal.any([controller.signal, runSignal]) : controller.signal;
      }
      return signal;
    },
  });
  let disarm: (() => void) | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    disarm = ctx.clock.at(ctx.clock.now() + timeoutMs, () => resolve("timeout"));
  });
  try {
    const winner = await Promise.race([handler(hctx, input, config), timedOut]);
    const elapsed_ms = performance.now() - t0;
    if (winner === "timeout") {
      controller?.abort(new Error("step timed out"));
      return { kind: "timeout", elapsed_ms, error: `timed out after ${Math.round(timeoutMs / 1000)} s` };
    }
    return { kind: "result", result: winner, elapsed_ms };
  } catch (err) {
    return { kind: "threw", elapsed_ms: performance.now() - t0, error: err instanceof Error ? err.message : String(err) };
  } finally {
    disarm?.();
  }
}
