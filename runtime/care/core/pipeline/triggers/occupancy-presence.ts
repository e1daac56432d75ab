/**
 * Several instances: every instance records the presence events it sees (from the hub on the
 * `hub` lease holder, or any other source) in `occupancy_presence`, so the occupancy timers,
 * which run on the `occupancy` lease holder, follow sensors wherever their events arrive, and
 * a new holder rebuilds them from there.
 */
import type { CareContext } from "../../context";
import type { SensorEvent } from "../../../../platform/core/event-bus";
import { recordPresence } from "./occupancy.store";
import { Inflight, type Trigger } from "./trigger-kit";

/** When a presence event counts from: its own time, unless it claims to come from the future. */
export const presenceAt = (e: Extract<SensorEvent, { kind: "presence" }>, nowMs: number): number => (Number.isFinite(e.at) && e.at <= nowMs ? e.at : nowMs);

export class PresenceRecorder implements Trigger {
  private readonly inflight: Inflight;
  private unsubscribe: (() => void) | null = null;
  /** One sensor's changes are written in the order they came. */
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: CareContext) {
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "recording a presence change failed"));
  }

  start(): void {
    this.unsubscribe ??= this.ctx.bus.subscribe("sensor.event", (e) => {
      if (e.kind !== "presence") return;
      const row = { sensor_id: e.sensor_id, occupied: e.occupied, at: presenceAt(e, this.ctx.clock.now()) };
      this.tail = this.tail
        .then(() => recordPresence(this.ctx.db, row))
        .catch((err: unknown) => this.ctx.log.error({ err }, "recording a presence change failed"));
      this.inflight.track(this.tail);
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }
}
