/**
 * A connection to a NATS broker, kept up for as long as it is wanted. Connecting never blocks
 * the caller: a broker that is down is tried again every `retryMs` (said once per outage), one
 * that goes away later is reconnected to by the client itself, and its status changes are
 * reported. Tracking's consumers and the cluster's link both keep their connection this way; a
 * halt ends a retry pause at once, so a stop never sits one out.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { connect } from "@nats-io/transport-node";

export type NatsConnection = Awaited<ReturnType<typeof connect>>;

export interface NatsKeeperHandlers {
  connect(): Promise<NatsConnection>;
  /** The broker could not be reached; `first` is true once per outage. */
  unreachable(err: string, first: boolean): void;
  /** The work on a new connection; resolves once it is over (the connection closed). */
  session(nc: NatsConnection): Promise<void>;
  /** The client lost the broker, and got it back (its own reconnection). */
  disconnected(): void;
  reconnected(): void;
}

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class NatsKeeper {
  private stopped = false;
  private readonly stopping = new AbortController();
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly retryMs: number,
    private readonly handlers: NatsKeeperHandlers,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  get halted(): boolean {
    return this.stopped;
  }

  /** Stops trying and ends a pause; the owner closes its connection, then awaits `finished()`. */
  halt(): void {
    this.stopped = true;
    this.stopping.abort();
  }

  finished(): Promise<void> {
    return this.loop.catch(() => undefined);
  }

  /** `retryMs`, or less when halted meanwhile. */
  pause(): Promise<void> {
    return sleep(this.retryMs, undefined, { signal: this.stopping.signal, ref: false }).catch(() => undefined);
  }

  private async run(): Promise<void> {
    let warned = false;
    while (!this.stopped) {
      let nc: NatsConnection;
      try {
        nc = await this.handlers.connect();
      } catch (err) {
        this.handlers.unreachable(errorText(err), !warned);
        warned = true;
        await this.pause();
        continue;
      }
      if (this.stopped) {
        await nc.close().catch(() => undefined);
        return;
      }
      warned = false;
      void this.watch(nc);
      await this.handlers.session(nc);
    }
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") this.handlers.disconnected();
      else if (s.type === "reconnect") this.handlers.reconnected();
    }
  }
}
