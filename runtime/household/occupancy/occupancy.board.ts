/**
 * Which presence sensors are occupied now and since when, from the presence events on the bus
 * (the hub's sensors, or any other source): what `GET /occupancy` shows, by room, with how
 * long each has been occupied and whether a bathroom is over `hub.bathroom_time_limit_minutes`
 * (the spec's `bathroom_time_limit`, 20 minutes). It holds the present only; after a restart a
 * sensor counts as occupied from its next event (the hub re-reads all states on connect, so
 * that is at once when a hub is configured).
 */
import type { PlatformContext } from "../../platform/context";
import { sameText } from "../tracking/match";

export interface RoomOccupancy {
  room: string | null;
  occupied: boolean;
  /** ISO time the room became occupied (its earliest occupied sensor), or null. */
  since: string | null;
  minutes: number | null;
  sensors: Array<{ sensor_id: string; occupied: boolean; since: string }>;
  /** A bathroom occupied for longer than the bathroom time limit. */
  over_time_limit: boolean;
}

interface SensorState {
  room_name: string | null;
  occupied: boolean;
  since: number;
}

export class OccupancyBoard {
  private readonly sensors = new Map<string, SensorState>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly ctx: Pick<PlatformContext, "bus" | "clock" | "settings">) {}

  start(): () => void {
    this.unsubscribe = this.ctx.bus.subscribe("sensor.event", (e) => {
      if (e.kind !== "presence") return;
      const prev = this.sensors.get(e.sensor_id);
      if (prev && prev.occupied === e.occupied) return;
      const at = Number.isFinite(e.at) && e.at <= this.ctx.clock.now() ? e.at : this.ctx.clock.now();
      this.sensors.set(e.sensor_id, { room_name: e.room_name, occupied: e.occupied, since: at });
    });
    return () => this.unsubscribe?.();
  }

  private limitMinutes(): number {
    const hub = this.ctx.settings.hub;
    return hub.bathroom_time_limit ?? hub.bathroom_time_limit_minutes;
  }

  /** Rooms (by name; sensors without a room under their own id), occupied ones first. */
  summary(roomName?: string): Record<string, RoomOccupancy> {
    const now = this.ctx.clock.now();
    const rooms = new Map<string, RoomOccupancy>();
    for (const [sensorId, s] of this.sensors) {
      if (roomName !== undefined && !(s.room_name && sameText(s.room_name, roomName))) continue;
      const key = s.room_name ?? sensorId;
      const room = rooms.get(key) ?? { room: s.room_name, occupied: false, since: null, minutes: null, sensors: [], over_time_limit: false };
      room.sensors.push({ sensor_id: sensorId, occupied: s.occupied, since: new Date(s.since).toISOString() });
      if (s.occupied && (room.since === null || s.since < Date.parse(room.since))) {
        room.occupied = true;
        room.since = new Date(s.since).toISOString();
        room.minutes = Math.round(((now - s.since) / 60_000) * 10) / 10;
      }
      rooms.set(key, room);
    }
    for (const room of rooms.values()) {
      room.over_time_limit = room.occupied && /bath/i.test(room.room ?? "") && (room.minutes ?? 0) >= this.limitMinutes();
    }
    return Object.fromEntries([...rooms].sort(([, a], [, b]) => Number(b.occupied) - Number(a.occupied)));
  }
}
