/**
 * The household's hub connection: a `HubClient` when an address and a token are set (the
 * Household page's, kept in the store, else the settings file's `hub.url` and `hub.token`),
 * else nothing, with the reason said wherever the hub is needed (a hub step's warning, a sync's
 * 503). Also what the presence providers and the speaker read through: entity states, fresh
 * from the client's cache.
 *
 * The address and token change while the service runs (`configure`): the one client reconnects
 * with them, so whatever holds it (the sensors' bridge, the locations, the heartbeat) carries
 * on; a hub set up for the first time starts its client and tells `whenClient`'s callers.
 */
import type { PlatformContext } from "../../platform/context";
import { HubClient } from "./hub-client";
import { leasesOf } from "../../platform/cluster/cluster";
import { whileHolding } from "../../platform/cluster/leases";
import type { HubState } from "./hub-protocol";
import type { HubStateReader } from "./hub-state";

export interface HubTarget {
  url: string;
  token: string;
}

export interface HubLink {
  /** The client, or null with `reason` saying why there is none. */
  readonly client: HubClient | null;
  readonly reason: string;
  /** Where the address and token in use come from. */
  readonly source: "settings" | "saved" | "none";
  /** An entity's current state, as last reported by the hub; null when unknown or no hub. */
  state(entityId: string): HubState | null;
  /** Uses this address and token from now on (the Household page's Hub form). */
  configure(target: HubTarget): void;
  /** Calls `fn` with the client now if there is one, else when the hub is first set up. */
  whenClient(fn: (client: HubClient) => void): void;
  stop(): Promise<void>;
}

export const NOT_CONFIGURED = "the home hub is not set up: it has no address and token";

export function startHub(ctx: Pick<PlatformContext, "settings" | "clock" | "log" | "cluster">, saved: HubTarget | null = null): HubLink {
  const { url, token, poll_seconds } = ctx.settings.hub;
  const first: HubTarget | null = saved ?? (url && token ? { url, token } : null);
  let source: HubLink["source"] = saved ? "saved" : first ? "settings" : "none";
  let client: HubClient | null = null;
  let current = first;
  let stopClient: () => Promise<void> = async () => undefined;
  const waiting: Array<(client: HubClient) => void> = [];

  const open = (target: HubTarget): HubClient => {
    const c = new HubClient({ url: target.url, token: target.token, clock: ctx.clock, log: ctx.log.child({ component: "hub" }), pollSeconds: poll_seconds });
    // One connection (its state events, its polling) for the whole cluster: on the instance holding
    // the lease. Elsewhere the client is not connected and its service calls go over REST.
    stopClient = whileHolding(leasesOf(ctx), "hub", () => {
      c.start();
      return () => c.stop();
    });
    return c;
  };
  if (first) client = open(first);

  return {
    get client() {
      return client;
    },
    get reason() {
      return client ? "" : NOT_CONFIGURED;
    },
    get source() {
      return source;
    },
    state: (id) => client?.state(id) ?? null,
    configure(target) {
      source = "saved";
      // The same again (this instance's own change, heard back from the bus): nothing to do.
      if (current && current.url === target.url && current.token === target.token) return;
      current = { ...target };
      if (client) return client.reconfigure(target.url, target.token);
      const c = (client = open(target));
      for (const fn of waiting.splice(0)) fn(c);
    },
    whenClient(fn) {
      if (client) fn(client);
      else waiting.push(fn);
    },
    stop: () => stopClient(),
  };
}

/** The answer of anything that needs the hub: the client, or why it cannot be used now. */
export function usableHub(link: HubLink | undefined): { ok: true; client: HubClient } | { ok: false; reason: string } {
  if (!link?.client) return { ok: false, reason: link?.reason || NOT_CONFIGURED };
  return { ok: true, client: link.client };
}

/** The presence providers' view of the hub (hub-state.ts): entity states from the client's cache. */
export const hubStateReader = (link: HubLink): HubStateReader => ({
  state: async (entityId) => {
    const s = link.state(entityId);
    return s ? { state: s.state, last_changed: s.last_changed } : null;
  },
});
