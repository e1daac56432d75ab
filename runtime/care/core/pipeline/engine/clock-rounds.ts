/**
 * A round of work every `periodMs` on the app clock (a ManualClock drives it in tests), the
 * next one armed when the last has finished, so rounds never overlap. The stop waits for a
 * round under way.
 */
import type { Clock } from "../../../../platform/core/clock";

export function everyPeriod(clock: Clock, periodMs: number, round: () => Promise<void>): () => Promise<void> {
  let stopped = false;
  let cancel: (() => void) | null = null;
  let current: Promise<void> = Promise.resolve();
  const next = (): void => {
    if (stopped) return;
    current = round().then(() => {
      if (!stopped) cancel = clock.at(clock.now() + periodMs, next);
    });
  };
  next();
  return async () => {
    stopped = true;
    cancel?.();
    await current;
  };
}
