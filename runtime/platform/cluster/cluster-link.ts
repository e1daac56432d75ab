/**
 * The instances' link over NATS (`cluster.nats_url`, docs/cluster.md "Events"): what one
 * instance publishes on a channel reaches every other instance's subscribers of that channel,
 * never its own (the connection is opened with `noEcho`). Core NATS publish/subscribe, no
 * JetStream: the channels carry live events (popups, run events, deploy notices), worthless
 * once late, and whatever must not be lost is in PostgreSQL already. Subjects are
 * `careflow.<cluster id>.<channel>`, the id kept in the shared database, so two clusters on one
 * broker (or two test databases) never hear each other.
 *
 * A broker that is down never stops the instance: connecting is retried every few seconds, a
 * lost connection is reconnected to by the client, and meanwhile publishing drops (the local
 * clients still get everything); `/health` and the log say so.
 */
import type { Logger } from "../core/logger";
import { isoAt, type Clock } from "../core/clock";
import { lazyModule } from "../core/lazy-module";
import { errorText, NatsKeeper, type NatsConnection } from "../core/nats-keeper";

// Loaded only when the cluster is on: one instance never needs the NATS client.
const nats = lazyModule(() => require("@nats-io/transport-node") as typeof import("@nats-io/transport-node"));

const RETRY_MS = 2000;

export type LinkState = "off" | "connecting" | "connected" | "reconnecting";

export interface LinkHealth {
  state: LinkState;
  nats_url: string | null;
  subject_prefix: string | null;
  connected_since: string | null;
  last_error: string | null;
}

export type ChannelHandler = (data: unknown, from: string) => void;

export interface ClusterLink {
  /** Sends `data` (JSON) to the other instances; dropped while the broker is unreachable. */
  publish(channel: string, data: unknown): void;
  /** Receives what the other instances publish on `channel`; returns the unsubscribe. */
  subscribe(channel: string, handler: ChannelHandler): () => void;
  /** Called after every (re)connection (and at once if connected now): what was published meanwhile was lost, so catch up. */
  onConnected(handler: () => void): () => void;
  health(): LinkHealth;
  stop(): Promise<void>;
}

/** One instance: nothing to tell anyone. */
export const offLink: ClusterLink = {
  publish: () => undefined,
  subscribe: () => () => undefined,
  onConnected: () => () => undefined,
  health: () => ({ state: "off", nats_url: null, subject_prefix: null, connected_since: null, last_error: null }),
  stop: async () => undefined,
};

export interface NatsLinkOptions {
  url: string;
  /** The cluster's id: subjects are `careflow.<prefix>.<channel>`. */
  prefix: string;
  instanceId: string;
  clock: Clock;
  log: Logger;
}

interface Envelope {
  from: string;
  data: unknown;
}

export class NatsLink implements ClusterLink {
  private nc: NatsConnection | null = null;
  private state: LinkState = "connecting";
  private connectedSince: string | null = null;
  private lastError: string | null = null;
  private readonly keeper: NatsKeeper;
  private readonly handlers = new Map<string, Set<ChannelHandler>>();
  private readonly connectedHandlers = new Set<() => void>();
  private readonly root: string;

  constructor(private readonly opts: NatsLinkOptions) {
    this.root = `careflow.${opts.prefix}.`;
    this.keeper = new NatsKeeper(RETRY_MS, {
      connect: () =>
        nats().connect({
          servers: opts.url,
          name: `careflow ${opts.instanceId}`,
          noEcho: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: RETRY_MS,
          timeout: 3000,
        }),
      unreachable: (err, first) => {
        this.lastError = err;
        if (first) opts.log.warn({ err, nats_url: opts.url }, "cluster: the NATS broker is not reachable; events reach only this instance's clients; retrying");
      },
      session: (nc) => this.session(nc),
      disconnected: () => {
        this.state = "reconnecting";
        this.lastError = "disconnected from the broker";
        opts.log.warn({ nats_url: opts.url }, "cluster: lost the NATS broker; events reach only this instance's clients until it is back");
      },
      reconnected: () => {
        this.connected();
        opts.log.info({ nats_url: opts.url }, "cluster: reconnected to the NATS broker");
      },
    });
  }

  start(): void {
    this.keeper.start();
  }

  publish(channel: string, data: unknown): void {
    const nc = this.nc;
    if (!nc || this.state !== "connected") return;
    try {
      nc.publish(this.root + channel, JSON.stringify({ from: this.opts.instanceId, data } satisfies Envelope));
    } catch (err) {
      this.lastError = errorText(err);
    }
  }

  subscribe(channel: string, handler: ChannelHandler): () => void {
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    return () => void set.delete(handler);
  }

  onConnected(handler: () => void): () => void {
    this.connectedHandlers.add(handler);
    // Connected before this part started listening: it catches up now.
    if (this.state === "connected") queueMicrotask(() => this.connectedHandlers.has(handler) && handler());
    return () => void this.connectedHandlers.delete(handler);
  }

  health(): LinkHealth {
    return {
      state: this.state,
      nats_url: this.opts.url,
      subject_prefix: this.root.slice(0, -1),
      connected_since: this.connectedSince,
      last_error: this.lastError,
    };
  }

  async stop(): Promise<void> {
    this.keeper.halt();
    const nc = this.nc;
    this.nc = null;
    if (nc) await nc.close().catch(() => undefined);
    await this.keeper.finished();
    this.state = "off";
  }

  /** Listens on every channel of this cluster until the connection closes for good. */
  private async session(nc: NatsConnection): Promise<void> {
    this.nc = nc;
    nc.subscribe(`${this.root}>`, {
      callback: (err: Error | null, m: { subject: string; string(): string }) => (err ? undefined : this.deliver(m.subject, m.string())),
    });
    this.connected();
    this.opts.log.info({ nats_url: this.opts.url, subjects: `${this.root}>` }, "cluster: connected to the NATS broker");
    await nc.closed();
    this.nc = null;
    if (!this.keeper.halted) {
      this.state = "reconnecting";
      this.opts.log.warn({}, "cluster: the NATS connection closed; connecting again");
    }
  }

  private connected(): void {
    this.state = "connected";
    this.connectedSince = isoAt(this.opts.clock.now());
    this.lastError = null;
    for (const h of this.connectedHandlers) {
      try {
        h();
      } catch (err) {
        this.opts.log.warn({ err }, "cluster: catching up after connecting failed");
      }
    }
  }

  private deliver(subject: string, text: string): void {
    const set = this.handlers.get(subject.slice(this.root.length));
    if (!set?.size) return;
    let env: Envelope;
    try {
      env = JSON.parse(text) as Envelope;
    } catch {
      return;
    }
    // noEcho already spares us our own messages; an id twin (a misconfiguration) is ignored too.
    if (env.from === this.opts.instanceId) return;
    for (const h of set) {
      try {
        h(env.data, env.from);
      } catch (err) {
        this.opts.log.warn({ err, subject }, "cluster: handling an event of another instance failed");
      }
    }
  }
}
