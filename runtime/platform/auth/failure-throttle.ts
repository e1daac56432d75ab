/**
 * Slows down key guessing per client address: after `max_failures` wrong keys (or editor
 * passwords) within `window_seconds`, that address is refused with 429 for
 * `block_seconds`, doubling with each further block up to `max_block_seconds`. Another
 * address is never affected, so nobody can lock the admin out from elsewhere. While an
 * address is blocked every attempt from it is refused, right keys too: otherwise the
 * guesser would learn when a guess was right. A right key never clears the count: failures
 * only age out of the window, so mixing a valid key in (anyone's) does not buy more guesses.
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
  /** When a refusal of this blocked address was last told (at most once a minute). */
  refusalToldAt: number;
}

/** A blocked address's refusals are told at most this often. */
const REFUSAL_LOG_MS = 60_000;

/** More addresses than this and the quietest are forgotten first. */
const MAX_CLIENTS = 10_000;

export class FailureThrottle {
  private readonly clients = new Map<string, ClientRecord>();

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly clock: Clock,
    /** Told once per block (the log line an operator looks for), not once per attempt. */
    private readonly onBlock: (client: string, seconds: number) => void = () => undefined,
    /** Told when a blocked address is refused, at most once per address and minute. */
    private readonly onRefusal: (client: string, seconds: number) => void = () => undefined,
  ) {}

  /** Seconds the client must wait before trying again, or 0 when it may try now. */
  retryAfter(client: string): number {
    const rec = this.clients.get(client);
    const now = this.clock.now();
    if (!rec || rec.blockedUntil <= now) return 0;
    return Math.ceil((rec.blockedUntil - now) / 1000);
  }

  /**
   * As `retryAfter`, for a request about to be refused because its address is blocked: the
   * refusal is told (logged) at most once per address and minute, so a flood cannot fill the disk.
   */
  refusal(client: string): number {
    const wait = this.retryAfter(client);
    const rec = this.clients.get(client);
    if (wait > 0 && rec) {
      const now = this.clock.now();
      if (now - rec.refusalToldAt >= REFUSAL_LOG_MS) {
        rec.refusalToldAt = now;
        this.onRefusal(client, wait);
      }
    }
    return wait;
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

  private touch(client: string): ClientRecord {
    let rec = this.clients.get(client);
    if (rec) {
      this.clients.delete(client); // re-insert: Map order is then least recently failed first
    } else {
      rec = { failures: [], blockedUntil: 0, blocks: 0, refusalToldAt: -Infinity };
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
