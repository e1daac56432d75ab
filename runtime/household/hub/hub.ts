/**
 * The household's hub connection: a `HubClient` when `hub.url` and a token are set, else
 * nothing, with the reason said wherever the hub is needed (a hub step's warning, a sync's 503).
 * Also what the presence providers and the speaker read through: entity states, fresh from the
 * client's cache.
 */
import type { PlatformContext } from "../../platform/context";
import { HubClient } from "./hub-client";
import { leasesOf } from "../../platform/cluster/cluster";
import { whileHolding } from "../../platform/cluster/leases";
import type { HubState } from "./hub-protocol";
import type { HubStateReader } from "./hub-state";

export interface HubLink {
  /** The client, or null with `reason` saying why there is none. */
  readonly client: HubClient | null;
  readonly reason: string;
  /** An entity's current state, as last reported by the hub; null when unknown or no hub. */
  state(entityId: string): HubState | null;
  stop(): Promise<void>;
}

export const NOT_CONFIGURED = "the home hub is not configured (set hub.url and hub.token, or CAREFLOW_HUB_TOKEN)";

export function startHub(ctx: Pick<PlatformContext, "settings" | "clock" | "log" | "cluster">): HubLink {
  const { url, token, poll_seconds } = ctx.settings.hub;
  if (!url || !token) {
    return { client: null, reason: NOT_CONFIGURED, state: () => null, stop: async () => undefined };
  }
  const client = new HubClient({ url, token, clock: ctx.clock, log: ctx.log.child({ component: "hub" }), pollSeconds: poll_seconds });
  // One connection (its state events, its polling) for the whole cluster: on the instance holding
  // the lease. Elsewhere the client is not connected and its service calls go over REST.
  const stop = whileHolding(leasesOf(ctx), "hub", () => {
    client.start();
    return () => client.stop();
  });
  return {
    client,
    reason: "",
    state: (id) => client.state(id) ?? null,
    stop,
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
