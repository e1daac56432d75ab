/**
 * The hub's entity states on every instance (docs/cluster.md "Events"): the hub connection runs
 * on the holder of the `hub` lease, whose client sees every state change; it publishes each
 * (the state and when it changed, what the presence providers read) and, when another instance
 * asks (at its start and at each reconnection to the broker), all it holds. The others keep the
 * copy their presence providers read. A new holder's first full read reports every state, so
 * the copies follow a failover.
 */
import type { ClusterLink } from "../../platform/cluster/cluster-link";
import type { Leases } from "../../platform/cluster/leases";
import type { HubClient } from "../../household/hub/hub-client";
import type { HubEntityState, HubStateReader } from "../../household/hub/hub-state";

interface StateMessage {
  entity_id: string;
  /** null: the entity is gone. */
  state: HubEntityState | null;
}

export function shareHubStates(client: HubClient, link: ClusterLink, leases: Leases): { reader: HubStateReader; stop(): void } {
  const copy = new Map<string, HubEntityState>();
  const holding = () => leases.holds("hub");
  const keep = (m: StateMessage) => {
    if (m.state) copy.set(m.entity_id, m.state);
    else copy.delete(m.entity_id);
  };
  const offs = [
    client.onStateChanged((c) => {
      if (!holding()) return;
      const s = c.new_state;
      link.publish("hub.state", { entity_id: c.entity_id, state: s ? { state: s.state, last_changed: s.last_changed } : null } satisfies StateMessage);
    }),
    link.subscribe("hub.state", (data) => keep(data as StateMessage)),
    link.subscribe("hub.states.wanted", () => {
      if (holding() && client.ready)
        link.publish(
          "hub.states",
          client.states().map((s) => ({ entity_id: s.entity_id, state: { state: s.state, last_changed: s.last_changed } })),
        );
    }),
    link.subscribe("hub.states", (data) => {
      copy.clear();
      for (const m of data as StateMessage[]) keep(m);
    }),
    link.onConnected(() => link.publish("hub.states.wanted", {})),
  ];
  return {
    reader: {
      state: async (entityId) => {
        if (holding()) {
          const s = client.state(entityId);
          return s ? { state: s.state, last_changed: s.last_changed } : null;
        }
        return copy.get(entityId) ?? null;
      },
    },
    stop: () => {
      for (const off of offs) off();
    },
  };
}
