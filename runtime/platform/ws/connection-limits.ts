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

export class ConnectionLimits {
  private readonly perCaller = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: () => ConnectionLimitSettings) {}

  /** Why this caller may not open one more connection now, or null when it may. */
  refusal(p: Principal): string | null {
    const { max_connections, max_connections_per_key } = this.limits();
    if (this.total >= max_connections) return "too many clients";
    if ((this.perCaller.get(callerOf(p)) ?? 0) >= max_connections_per_key) return "too many connections with this key";
    return null;
  }

  /** Count a connection in; returns the function that counts it out (once). */
  admit(p: Principal): () => void {
    const caller = callerOf(p);
    this.perCaller.set(caller, (this.perCaller.get(caller) ?? 0) + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perCaller.get(caller) ?? 1) - 1;
      if (left > 0) this.perCaller.set(caller, left);
      else this.perCaller.delete(caller);
    };
  }
}
