/**
 * The signal a model request runs under: the step's signal and the entry's `timeout`, whichever
 * comes first. Kept apart so a failure can say which one ended the request.
 */
export interface Deadline {
  signal: AbortSignal;
  timedOut(): boolean;
  /** The step's signal (cancel or step timeout) fired. */
  aborted(): boolean;
}

export function deadline(timeoutSeconds: number, stepSignal?: AbortSignal): Deadline {
  const timer = AbortSignal.timeout(Math.round(timeoutSeconds * 1000));
  return {
    signal: stepSignal ? AbortSignal.any([stepSignal, timer]) : timer,
    timedOut: () => timer.aborted && !(stepSignal?.aborted ?? false),
    aborted: () => stepSignal?.aborted ?? false,
  };
}
