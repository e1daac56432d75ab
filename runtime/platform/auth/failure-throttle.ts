/**
 * Slows down key guessing per client address: after `max_failures` wrong keys (or editor
 * passwords) within `window_seconds`, that address is refused with 429 for
 * `block_seconds`, doubling with each further block up to `max_block_seconds`. Another
 * address is never affected, so nobody can lock the admin out from elsewhere. While an
 * address is blocked every attempt from it is refused, right keys too: otherwise the
 * guesser would learn when a guess was right.
 */
import type { Clock } from "../core/clock";

export interface ThrottleSettings {
  max_failures: number;
  window_seconds: number;
  block_seconds: number;
  max_block_seconds: number;
}

interface ClientRecord {
  failures: number[];
  blockedUntil: number;
  blocks: number;
}

/** More addresses than this and the quietest are forgotten first. */
const MAX_CLIENTS = 10_000;

export class FailureThrottle {
  private readonly clients = new Map<string, ClientRecord>();

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly clock: Clock,
    /** Told once per block (the log line an operator looks for), not once per attempt. */
    private readonly onBlock: (client: string, seconds: number) => void = () => undefined,
  ) {}

  /** Seconds the client must wait before trying again, or 0 when it may try now. */
  retryAfter(client: string): number {
    const rec = this.clients.get(client);
    const now = this.clock.now();
    if (!rec || rec.blockedUntil <= now) return 0;
    return Math.ceil((rec.blockedUntil - now) / 1000);
  }

  /** Records a wrong key or password; returns the seconds to wait if this blocked the client. */
  fail(client: string): number {
    const now = this.clock.now();
    const rec = this.touch(client);
    const windowStart = now - this.settings.window_seconds * 1000;
    rec.failures = rec.failures.filter((t) => t > windowStart);
    rec.failures.push(now);
    if (rec.failures.length < this.settings.max_failures) return 0;
    const seconds = Math.min(this.settings.block_seconds * 2 ** rec.blocks, this.settings.max_block_seconds);
    rec.blocks += 1;
    rec.blockedUntil = now + seconds * 1000;
    rec.failures = [];
    this.onBlock(client, seconds);
    return seconds;
  }

  /** A right key: the client's count starts again (its block history decays with the window). */
  succeed(client: string): void {
    const rec = this.clients.get(client);
    if (!rec) return;
    rec.failures = [];
    if (rec.blockedUntil + this.settings.window_seconds * 1000 < this.clock.now()) this.clients.delete(client);
  }

  private touch(client: string): ClientRecord {
    let rec = this.clients.get(client);
    if (rec) {
      this.clients.delete(client); // re-insert: Map order is then least recently failed first
    } else {
      rec = { failures: [], blockedUntil: 0, blocks: 0 };
      if (this.clients.size >= MAX_CLIENTS) this.evictOne();
    }
    this.clients.set(client, rec);
    return rec;
  }

  private evictOne(): void {
    const now = this.clock.now();
    for (const [client, rec] of this.clients) {
      if (rec.blockedUntil <= now) {
        this.clients.delete(client);
        return;
      }
    }
    const oldest = this.clients.keys().next();
    if (!oldest.done) this.clients.delete(oldest.value);
  }
}
