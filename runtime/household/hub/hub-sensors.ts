/**
 * Hub sensors become household sensor events: a hub entity that is a sensor of the household
 * (its `sensor_id` is the entity id, as `/ha/sync/sensors` creates them) publishes, on each
 * change of its state, a `presence` event (presence sensors: motion, occupancy, bed, door) or a
 * `button` event (buttons) on the one `sensor.event` topic. `sensor_event` rules and the
 * occupancy board follow from there, whatever the source.
 */
import type { PlatformContext } from "../../platform/context";
import { findSensor } from "../sensors/sensors.service";
import type { HubClient } from "./hub-client";
import type { HubStateChange } from "./hub-protocol";

/** Hub states that mean "someone is there" (on, home, detected, occupied, open). */
const OCCUPIED = new Set(["on", "home", "detected", "occupied", "open", "true"]);

export const isOccupiedState = (state: string): boolean => OCCUPIED.has(state.toLowerCase());

export function bridgeHubSensors(ctx: PlatformContext, client: HubClient): () => void {
  const onChange = async (change: HubStateChange): Promise<void> => {
    const next = change.new_state;
    if (!next || next.state === change.old_state?.state) return;
    if (next.state === "unavailable" || next.state === "unknown") return;
    const sensor = await findSensor(ctx, change.entity_id);
    if (!sensor || !sensor.enabled) return;
    const at = Date.parse(next.last_changed);
    if (sensor.sensor_type === "presence") {
      ctx.bus.publish("sensor.event", {
        kind: "presence",
        sensor_id: sensor.sensor_id,
        room_name: sensor.room_name,
        occupied: isOccupiedState(next.state),
        at: Number.isFinite(at) ? at : ctx.clock.now(),
        initial: change.old_state === null,
      });
    } else if (sensor.sensor_type === "button" && change.old_state !== null) {
      ctx.bus.publish("sensor.event", {
        kind: "button",
        sensor_id: sensor.sensor_id,
        room_name: sensor.room_name,
        input: { source: "hub", entity_id: change.entity_id, state: next.state },
      });
    }
  };
  return client.onStateChanged((change) => {
    onChange(change).catch((err: unknown) => ctx.log.error({ err, entity_id: change.entity_id }, "a hub sensor change could not be handled"));
  });
}
