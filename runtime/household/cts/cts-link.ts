/**
 * The connection to the broker (NATS JetStream, `cts.nats_url`) and careflow's durable
 * consumers on the six streams. Connecting never blocks the service: a broker that is down at
 * start is tried again every few seconds, one that goes away later is reconnected to by the
 * client, and either way `/health` and the log say so. Streams are created when absent;
 * each consumer is durable with explicit acks, so what was not acknowledged is delivered again
 * after a restart, a kill -9 or a broker restart.
 */
import type { ConsumerMessages, JetStreamManager } from "@nats-io/jetstream";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import type { CtsStatus } from "./cts-status";
import type { StreamKey, StreamNames } from "./cts-streams";
import type { StreamPump } from "./stream-pump";
import { lazyModule } from "../../platform/core/lazy-module";
import { errorText, NatsKeeper, type NatsConnection } from "../../platform/core/nats-keeper";

// The NATS client is loaded when tracking is switched on (cts.enabled), not in every start.
const nats = lazyModule(() => require("@nats-io/transport-node") as typeof import("@nats-io/transport-node"));
const js = lazyModule(() => require("@nats-io/jetstream") as typeof import("@nats-io/jetstream"));

const RETRY_MS = 2000;
const SECOND_NS = 1_000_000_000;
/**
 * How long the broker keeps a stream's messages. Tracking events go stale after seconds, so
 * ten minutes covers a restart; signals are what someone must see, kept a week.
 */
const MAX_AGE_SECONDS: Record<StreamKey, number> = {
  "tracking.events": 600,
  "tracking.revisions": 86_400,
  "tracking.signals": 7 * 86_400,
  "scene.samples": 3600,
  "tracking.presence": 86_400,
  "tracking.dwell": 86_400,
};

/** Creates the stream when absent (the tracking service may have made it first); true when created. */
export async function ensureStream(jsm: JetStreamManager, n: StreamNames): Promise<boolean> {
  try {
    await jsm.streams.info(n.stream);
    return false;
  } catch {
    await jsm.streams.add({
      name: n.stream,
      subjects: [n.subject],
      storage: js().StorageType.File,
      max_age: MAX_AGE_SECONDS[n.key] * SECOND_NS,
      duplicate_window: 120 * SECOND_NS,
    });
    return true;
  }
}

export class CtsLink {
  private nc: NatsConnection | null = null;
  private readonly consuming = new Set<ConsumerMessages>();
  private readonly keeper: NatsKeeper;

  constructor(
    private readonly ctx: PlatformContext,
    private readonly status: CtsStatus,
    private readonly pumps: readonly StreamPump[],
  ) {
    this.keeper = new NatsKeeper(RETRY_MS, {
      connect: () =>
        nats().connect({ servers: ctx.settings.cts.nats_url, name: "careflow", maxReconnectAttempts: -1, reconnectTimeWait: RETRY_MS, timeout: 5000 }),
      unreachable: (err, first) => {
        status.lastError = err;
        if (first) ctx.log.warn({ err, nats_url: status.health().nats_url }, "tracking: the NATS broker is not reachable; retrying");
      },
      session: (nc) => this.session(nc),
      disconnected: () => {
        status.state = "reconnecting";
        ctx.log.warn({}, "tracking: lost the NATS broker; reconnecting");
      },
      reconnected: () => {
        this.connected();
        ctx.log.info({}, "tracking: reconnected to the NATS broker");
      },
    });
  }

  private get stopped(): boolean {
    return this.keeper.halted;
  }

  start(): void {
    this.keeper.start();
  }

  async stop(): Promise<void> {
    this.keeper.halt();
    for (const c of this.consuming) c.stop();
    await Promise.all(this.pumps.map((p) => p.idle()));
    const nc = this.nc;
    this.nc = null;
    if (nc) await nc.drain().catch(() => nc.close());
    await this.keeper.finished();
  }

  /** Consumes every stream on a new connection until it closes for good. */
  private async session(nc: NatsConnection): Promise<void> {
    this.nc = nc;
    this.connected();
    this.ctx.log.info({ nats_url: this.status.health().nats_url }, "tracking: connected to the NATS broker");
    const consumers = this.pumps.map((p) => this.consumeLoop(nc, p));
    await nc.closed();
    await Promise.allSettled(consumers);
    if (!this.stopped) {
      this.status.state = "reconnecting";
      this.ctx.log.warn({}, "tracking: the NATS connection closed; connecting again");
    }
  }

  private connected(): void {
    this.status.state = "connected";
    this.status.connectedSince = isoNow(this.ctx.clock);
    this.status.lastError = null;
  }

  /** Makes sure the stream and the durable consumer exist, then feeds the pump; on any failure, again. */
  private async consumeLoop(nc: NatsConnection, pump: StreamPump): Promise<void> {
    while (!this.stopped && !nc.isClosed()) {
      try {
        const jsm = await js().jetstreamManager(nc);
        await this.ensure(jsm, pump.names);
        const consumer = await js().jetstream(nc).consumers.get(pump.names.stream, pump.names.durable);
        const messages = await consumer.consume({ max_messages: 1000 });
        this.consuming.add(messages);
        try {
          for await (const m of messages) pump.push(m);
        } finally {
          this.consuming.delete(messages);
        }
      } catch (err) {
        if (this.stopped || nc.isClosed()) return;
        this.status.lastError = `${pump.names.stream}: ${errorText(err)}`;
        this.ctx.log.warn({ err: errorText(err), stream: pump.names.stream }, "tracking: consuming a stream failed; trying again");
      }
      if (!this.stopped) await this.keeper.pause();
    }
  }

  private async ensure(jsm: JetStreamManager, n: StreamNames): Promise<void> {
    if (await ensureStream(jsm, n)) this.ctx.log.info({ stream: n.stream, subject: n.subject }, "tracking: stream created");
    try {
      await jsm.consumers.info(n.stream, n.durable);
    } catch {
      await jsm.consumers.add(n.stream, {
        durable_name: n.durable,
        ack_policy: js().AckPolicy.Explicit,
        deliver_policy: js().DeliverPolicy.All,
        ack_wait: this.ctx.settings.cts.ack_wait_seconds * SECOND_NS,
        max_deliver: this.ctx.settings.cts.max_deliver + 1,
        max_ack_pending: 5000,
      });
    }
  }
}
