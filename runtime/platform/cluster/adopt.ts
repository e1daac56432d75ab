/**
 * What a leased job needs when its work can begin on any instance (a frame, an alert, a quiz
 * started through another instance's API): the holder re-reads the shared store now and then
 * and adopts what it finds there, so work begun elsewhere, or left by an instance that died,
 * is done by the holder. With one instance (cluster off) nothing polls: every input arrives
 * at the one instance, as it always did.
 */
import type { Clock } from "../core/clock";
import type { Cluster } from "./cluster";

/** How often a holder re-reads the store: a timer adopted from elsewhere is at most this late. */
export const ADOPT_EVERY_MS = 1000;

/** Is this instance one of several (cluster on)? */
export const clustered = (ctx: { cluster?: Pick<Cluster, "enabled"> }): boolean => ctx.cluster?.enabled === true;

/**
 * Calls `fn` now and then every `everyMs` on the clock, one call at a time; `fn` may return an
 * earlier time for its next call (a batch due sooner). The returned stop cancels the timer and
 * waits for a call under way.
 */
export function repeatOnClock(clock: Clock, everyMs: number, fn: () => Promise<number | void>, onError: (err: unknown) => void): () => Promise<void> {
  let stopped = false;
  let cancel: (() => void) | null = null;
  let running: Promise<void> = Promise.resolve();
  const call = (): void => {
    cancel = null;
    if (stopped) return;
    running = (async () => {
      let next = clock.now() + everyMs;
      try {
        const sooner = await fn();
        if (typeof sooner === "number") next = Math.min(next, Math.max(sooner, clock.now()));
      } catch (err) {
        onError(err);
      }
      if (!stopped) cancel = clock.at(next, call);
    })();
  };
  call();
  return async () => {
    stopped = true;
    cancel?.();
    cancel = null;
    await running;
  };
}
