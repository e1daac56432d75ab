/**
 * careflow's heartbeat on the hub (issue 44 §4): every minute `sensor.careflow_heartbeat` holds
 * the time careflow was last alive (a timestamp sensor) and the parts' summary as attributes,
 * so something outside careflow (the blueprint in docs/hub.md) can tell the family when it
 * stops. With several instances the holder of the hub lease beats; a beat that fails is logged
 * and the next one tries again.
 */
import type { PlatformContext } from "../../platform/context";
import { leasesOf } from "../../platform/cluster/cluster";
import type { HubClient } from "./hub-client";

export const HEARTBEAT_ENTITY = "sensor.careflow_heartbeat";
export const HEARTBEAT_EVERY_MS = 60_000;

export function startHubHeartbeat(ctx: Pick<PlatformContext, "clock" | "log" | "parts" | "cluster">, client: HubClient): () => Promise<void> {
  let cancel: (() => void) | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let failing = false;
  const beat = async (): Promise<void> => {
    if (!leasesOf(ctx).holds("hub")) return;
    const now = new Date(ctx.clock.now()).toISOString();
    const summary = ctx.parts?.summary();
    try {
      await client.setState(HEARTBEAT_ENTITY, now, {
        friendly_name: "careflow heartbeat",
        device_class: "timestamp",
        icon: "mdi:heart-pulse",
        ...(summary ? { parts_state: summary.state, parts_counts: summary.counts, parts_not_ok: summary.not_ok } : {}),
      });
      if (failing) ctx.log.info({}, "the heartbeat reaches the hub again");
      failing = false;
    } catch (err) {
      // Said once per outage, not every minute.
      if (!failing) ctx.log.warn({ err: String(err) }, "the heartbeat could not be written to the hub");
      failing = true;
    }
  };
  const tick = () => {
    cancel = ctx.clock.at(ctx.clock.now() + HEARTBEAT_EVERY_MS, tick, { background: true });
    inFlight = beat();
  };
  inFlight = beat();
  cancel = ctx.clock.at(ctx.clock.now() + HEARTBEAT_EVERY_MS, tick, { background: true });
  return async () => {
    cancel?.();
    await inFlight;
  };
}
