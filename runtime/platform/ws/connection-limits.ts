/**
 * How many WebSocket connections a socket path holds, in total and per caller. A newcomer
 * over either limit is refused (closed with 1013, "try again later"); a connection already
 * open is never closed to make room, so one key opening sockets in a loop cannot push the
 * caregiver or the senior's tablet off.
 */
import type { Principal } from "../auth/principal";

export interface ConnectionLimitSettings {
  max_connections: number;
  max_connections_per_key: number;
}

/** One caller: a device by its sensor, an API key by its name. */
const callerOf = (p: Principal): string => (p.kind === "device" ? `device:${p.sensor_id}` : `key:${p.name}`);

/** Which share a newcomer would overflow: everyone's, or its owner's. */
export type ShareOverflow = "total" | "per_owner";

/**
 * Places held in total and per owner (WebSocket connections, MCP sessions): a newcomer over
 * either limit is refused; a place already held is never taken back to make room.
 */
export class ShareLimits {
  private readonly perOwner = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: () => { total: number; per_owner: number }) {}

  /** Which limit one more place for `owner` would pass, or null when it fits. */
  overflow(owner: string): ShareOverflow | null {
    const { total, per_owner } = this.limits();
    if (this.total >= total) return "total";
    if ((this.perOwner.get(owner) ?? 0) >= per_owner) return "per_owner";
    return null;
  }

  /** Counts a place of `owner` in; returns the function that counts it out (once). */
  admit(owner: string): () => void {
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perOwner.get(owner) ?? 1) - 1;
      if (left > 0) this.perOwner.set(owner, left);
      else this.perOwner.delete(owner);
    };
  }
}

/** A socket path's connections: one share per caller. */
export class ConnectionLimits {
  private readonly shares: ShareLimits;

  constructor(limits: () => ConnectionLimitSettings) {
    this.shares = new ShareLimits(() => {
      const l = limits();
      return { total: l.max_connections, per_owner: l.max_connections_per_key };
    });
  }

  /** Why this caller may not open one more connection now, or null when it may. */
  refusal(p: Principal): string | null {
    const over = this.shares.overflow(callerOf(p));
    return over === "total" ? "too many clients" : over === "per_owner" ? "too many connections with this key" : null;
  }

  /** Count a connection in; returns the function that counts it out (once). */
  admit(p: Principal): () => void {
    return this.shares.admit(callerOf(p));
  }
}
