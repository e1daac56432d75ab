/**
 * The home hub as the app starts it: the address and token the family set on the Household
 * page before the settings file's, changed at once when set again (on any instance), and once
 * it has a client its sensors on the bus, locations back to it and its states for the
 * hub-backed presence providers (with several instances, those the connection's holder shares).
 */
import type { AppContext } from "./context";
import type { Lifecycle } from "../platform/core/lifecycle";
import type { Cluster } from "../platform/cluster/cluster";
import { hubStateReader, startHub, type HubLink } from "../household/hub/hub";
import { savedHubConnection } from "../household/hub/hub-connection.store";
import { useHubState } from "../household/hub/hub-state";
import { bridgeHubSensors } from "../household/hub/hub-sensors";
import { pushLocationsToHub } from "../household/hub/hub-location";
import { shareHubStates } from "./cluster/hub-states";

export async function startHomeHub(ctx: AppContext, lifecycle: Lifecycle, cluster: Cluster): Promise<HubLink> {
  const { log } = ctx;
  // The address and token the family set on the Household page, if any, stand before the settings file's.
  const hub = startHub(ctx, await savedHubConnection(ctx.db));
  ctx.hub = hub;
  lifecycle.add("hub", () => hub.stop());
  // Set on the Household page, on this instance or another: read from the store and used at once.
  lifecycle.add(
    "hub settings",
    ctx.bus.subscribe(
      "hub.configured",
      () =>
        void savedHubConnection(ctx.db)
          .then((saved) => saved && hub.configure(saved))
          .catch((err: unknown) => log.warn({ err: String(err) }, "hub: reading the address and token set on the Household page failed")),
      { otherInstances: true },
    ),
  );
  // Now, or when the family first sets the hub up on the Household page.
  hub.whenClient((client) => {
    lifecycle.add("hub sensors", bridgeHubSensors(ctx, client));
    lifecycle.add("hub locations", pushLocationsToHub(ctx, client));
    // The hub-backed presence providers (bed sensor, phone, night anchor) read its states;
    // with several instances, those the holder of the hub connection shares.
    if (cluster.enabled) {
      const shared = shareHubStates(client, cluster.link, cluster.leases);
      lifecycle.add("cluster: hub states", () => shared.stop());
      useHubState(ctx, shared.reader);
    } else useHubState(ctx, hubStateReader(hub));
  });
  return hub;
}
