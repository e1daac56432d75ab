/**
 * "Test connection" of the tracking service's broker (issue 43 §1): connects once to a NATS
 * address, asks JetStream for its streams, and says which of careflow's six (with this
 * household's `cts.stream_prefix`) are there. Nothing is kept and the running link is not
 * touched. A broker without JetStream, or nothing at the address, is said as such.
 */
import { lazyModule } from "../../platform/core/lazy-module";
import { errorText } from "../../platform/core/nats-keeper";
import { allStreamNames } from "./cts-streams";

const nats = lazyModule(() => require("@nats-io/transport-node") as typeof import("@nats-io/transport-node"));
const js = lazyModule(() => require("@nats-io/jetstream") as typeof import("@nats-io/jetstream"));

export interface TrackingFound {
  ok: true;
  server: string;
  /** careflow's streams the broker has, and those it does not (careflow makes them on connecting). */
  streams_found: string[];
  streams_missing: string[];
  /** Every stream on the broker, careflow's or not. */
  streams_total: number;
}

export interface TrackingNotFound {
  ok: false;
  field: "nats_url";
  message: string;
}

export const TRACKING_PROBE_TIMEOUT_MS = 3_000;

export async function probeTracking(natsUrl: string, prefix: string, timeoutMs = TRACKING_PROBE_TIMEOUT_MS): Promise<TrackingFound | TrackingNotFound> {
  let nc: Awaited<ReturnType<ReturnType<typeof nats>["connect"]>>;
  try {
    nc = await nats().connect({ servers: natsUrl, name: "careflow-test", timeout: timeoutMs, maxReconnectAttempts: 0, reconnect: false });
  } catch (err) {
    return { ok: false, field: "nats_url", message: `no NATS broker answered at ${natsUrl} (${errorText(err)})` };
  }
  try {
    const jsm = await js().jetstreamManager(nc, { timeout: timeoutMs });
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    const have = new Set(names);
    const ours = allStreamNames(prefix).map((n) => n.stream);
    return {
      ok: true,
      server: nc.info ? `NATS ${nc.info.version}` : "NATS",
      streams_found: ours.filter((s) => have.has(s)),
      streams_missing: ours.filter((s) => !have.has(s)),
      streams_total: names.length,
    };
  } catch (err) {
    return { ok: false, field: "nats_url", message: `the NATS broker at ${natsUrl} answered, but without JetStream (start it with -js): ${errorText(err)}` };
  } finally {
    await nc.close().catch(() => undefined);
  }
}
