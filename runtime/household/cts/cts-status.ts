/**
 * What the consumer has done since the start, per stream, and whether the broker is reachable:
 * read by `/health` and logged. Counters only: the records are the tables.
 */

/** `standby`: with several instances, another one holds the `cts` lease and consumes the streams. */
export type LinkState = "disabled" | "standby" | "connecting" | "connected" | "reconnecting";

export interface StreamCounters {
  received: number;
  applied: number;
  /** Redeliveries of a message already applied: acknowledged, nothing changed. */
  duplicates: number;
  /** Dropped by the original's rules (stale, incomplete), with the last reason. */
  dropped: number;
  dead_letters: number;
  last_drop: string | null;
}

export interface CtsHealth {
  enabled: boolean;
  state: LinkState;
  nats_url: string;
  connected_since: string | null;
  last_error: string | null;
  streams: Record<string, StreamCounters>;
}

export class CtsStatus {
  state: LinkState;
  connectedSince: string | null = null;
  lastError: string | null = null;
  private readonly counters = new Map<string, StreamCounters>();

  constructor(
    readonly enabled: boolean,
    readonly natsUrl: string,
  ) {
    this.state = enabled ? "connecting" : "disabled";
  }

  of(stream: string): StreamCounters {
    let c = this.counters.get(stream);
    if (!c) {
      c = { received: 0, applied: 0, duplicates: 0, dropped: 0, dead_letters: 0, last_drop: null };
      this.counters.set(stream, c);
    }
    return c;
  }

  health(): CtsHealth {
    return {
      enabled: this.enabled,
      state: this.state,
      // A URL may carry a user and password; /health is open to anyone on the network.
      nats_url: this.natsUrl.replace(/\/\/[^@/]*@/, "//***@"),
      connected_since: this.connectedSince,
      last_error: this.lastError,
      streams: Object.fromEntries([...this.counters].map(([k, v]) => [k, { ...v }])),
    };
  }
}
