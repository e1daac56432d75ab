/**
 * Time as a dependency. Time-based code never reads `Date.now()` directly: it asks a
 * Clock, so tests drive cron, cool-off, waits, escalation and expiry with a ManualClock.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Run `fn` once the clock reaches `atMs`; returns a cancel function. `background`: a
   * watcher's own heartbeat (health sampling), which tests of other timers do not count.
   */
  at(atMs: number, fn: () => void, opts?: { background?: boolean }): () => void;
}

// setTimeout cannot wait longer than 2^31-1 ms; longer waits re-arm in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  at(atMs, fn) {
    let timer: NodeJS.Timeout | undefined;
    let cancelled = false;
    const arm = () => {
      if (cancelled) return;
      const delay = atMs - Date.now();
      if (delay <= 0) return void setImmediate(() => !cancelled && fn());
      timer = setTimeout(arm, Math.min(delay, MAX_TIMER_MS));
      timer.unref?.();
    };
    arm();
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
    };
  },
};

interface PendingTimer {
  atMs: number;
  seq: number;
  fn: () => void;
  background: boolean;
}

/** A clock that moves only when told to; due timers fire in time order on `advance`. */
export class ManualClock implements Clock {
  private timers: PendingTimer[] = [];
  private seq = 0;
  /** Inside set(): timers armed by the ones firing are picked up by its loop, in order. */
  private advancing = 0;

  constructor(private current: number = Date.parse("2026-01-05T09:00:00Z")) {}

  now(): number {
    return this.current;
  }

  at(atMs: number, fn: () => void, opts: { background?: boolean } = {}): () => void {
    const timer = { atMs, seq: this.seq++, fn, background: opts.background === true };
    this.timers.push(timer);
    // As on the system clock, a time already reached fires at once (after the caller's turn),
    // not at the next advance: code that arms late must not look right only in tests.
    if (atMs <= this.current && this.advancing === 0) setImmediate(() => this.set(this.current));
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Move time forward, firing each timer that falls due, in order, at its own time. */
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  set(targetMs: number): void {
    this.advancing++;
    try {
      for (;;) {
        const due = this.timers.filter((t) => t.atMs <= targetMs).sort((a, b) => a.atMs - b.atMs || a.seq - b.seq)[0];
        if (!due) break;
        this.timers = this.timers.filter((t) => t !== due);
        this.current = Math.max(this.current, due.atMs);
        due.fn();
      }
    } finally {
      this.advancing--;
    }
    this.current = Math.max(this.current, targetMs);
  }

  /** When the earliest armed timer falls due; undefined when none is armed. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const t of this.timers) if (next === undefined || t.atMs < next) next = t.atMs;
    return next;
  }

  /** Timers armed and not yet fired, but for background ones (a test asks about its component's). */
  pendingTimers(): number {
    return this.timers.filter((t) => !t.background).length;
  }
}

/** An instant as an ISO string; a busy engine asks for the same millisecond many times over. */
let lastIso = { ms: NaN, text: "" };
export function isoAt(ms: number): string {
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

export const isoNow = (clock: Clock): string => isoAt(clock.now());
