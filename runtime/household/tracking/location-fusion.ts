/**
 * The location state, fused from camera sightings and presence sensors (the spec's
 * "Location state"): a camera sighting sets the person's room; a presence sensor that
 * turns occupied after it places the person in the sensor's room (when only one person is
 * placed and fresh, so it can only be them); a camera sighting anywhere sets the room again.
 * Each change appends history (with the sighting's direction_semantic), records a room
 * transition and publishes a `sensor.event` of kind `location` that sensor_event rules
 * fire on. Evidence that keeps the person in the same room refreshes the location and the
 * stay's quality (the mean confidence of its evidence).
 *
 * Every sighting is stored, visitors' too; visitors are not placed. Events are handled one
 * at a time, in the order they arrived.
 */
import { SerialWork } from "../../platform/core/serial-work";
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import type { PersonSighting, SensorEvent } from "../../platform/core/event-bus";
import { findRoomByName } from "../rooms/rooms.service";
import { sensorRoomName } from "../sensors/sensors.service";
import { displayNameOf } from "../persons/persons.service";
import { appendLocationChange, latestLocationChange, setChangeQuality } from "./location-history.store";
import { listPersonLocations, lockPersonLocations, writePersonLocation } from "./locations.store";
import { locationStep, type Evidence, type LocationLimits, type ResolvedRoom } from "./location-step";
import { isoAt, minutesAgo } from "./match";
import { recordSighting } from "./sightings.store";
import { applyFixesIn, type LockedLocations } from "./tracking-fixes";
import { recordTransition } from "./transitions.store";
import type { WriteBatch } from "../../platform/db/write-batch";

/** The confidence of a room inferred from a presence sensor: it says someone is there, not who. */
export const INFERRED_CONFIDENCE = 0.6;

export type { ResolvedRoom };

/** A person placed by the continuous-tracking service (a tracking event's detection). */
export interface TrackingFix {
  person_id: string;
  person_name: string | null;
  room_name: string;
  /** The CTS camera id. */
  sensor_id: string;
  confidence: number;
  atMs: number;
  /** The physical track the fix came from; revisions name it. */
  ph_id: string;
}

export class LocationFusion {
  private readonly work = new SerialWork((err: unknown) => this.ctx.log.error({ err }, "location fusion: an event was not applied"));
  private unsubscribers: Array<() => void> = [];

  constructor(private readonly ctx: PlatformContext) {}

  start(): void {
    if (this.unsubscribers.length) return;
    this.unsubscribers = [
      this.ctx.bus.subscribe("person.sighted", (s) => this.enqueue(() => this.onSighting(s))),
      this.ctx.bus.subscribe("sensor.event", (e) => {
        if (e.kind === "presence" && e.occupied) this.enqueue(() => this.onOccupied(e.sensor_id, e.room_name, e.at));
      }),
    ];
  }

  stop(): void {
    for (const u of this.unsubscribers) u();
    this.unsubscribers = [];
  }

  /** Resolves when every event received so far has been handled; for tests. */
  idle(): Promise<void> {
    return this.work.idle();
  }

  private enqueue(piece: () => Promise<void>): void {
    this.work.add(piece);
  }

  /** An instant from an event: never in the future, `now` when missing. */
  private instant(atMs: number): number {
    const now = this.ctx.clock.now();
    return Number.isFinite(atMs) && atMs <= now ? atMs : now;
  }

  private async onSighting(s: PersonSighting): Promise<void> {
    const atMs = this.instant(s.at);
    const room = s.room_name?.trim() || (await sensorRoomName(this.ctx, s.sensor_id));
    await recordSighting(this.ctx.db, {
      person_id: s.person_id,
      person_name: s.person_name,
      visitor: s.visitor,
      sensor_id: s.sensor_id,
      room_name: room,
      confidence: s.confidence,
      bbox: s.bbox,
      media_path: s.media_path,
      direction_raw: s.direction_raw,
      direction_semantic: s.direction_semantic,
      timestamp: isoAt(atMs),
    });
    if (s.visitor || !room || !this.ctx.settings.person_tracking.enabled) return;
    await this.apply({
      person_id: s.person_id,
      person_name: s.person_name,
      room_name: room,
      source: "camera",
      sensor_id: s.sensor_id,
      confidence: s.confidence,
      atMs,
      direction_raw: s.direction_raw,
      direction_semantic: s.direction_semantic,
    });
  }

  private async onOccupied(sensorId: string, eventRoom: string | null, at: number): Promise<void> {
    if (!this.ctx.settings.person_tracking.enabled) return;
    const room = (await sensorRoomName(this.ctx, sensorId)) ?? eventRoom;
    if (!room) return;
    const atMs = this.instant(at);
    const staleMinutes = this.ctx.settings.person_tracking.stale_timeout_minutes;
    // Placed by a camera (or by this inference after one), in a room, fresh, and before this activation.
    const placed = (await listPersonLocations(this.ctx.db)).filter(
      (l) =>
        (l.source === "camera" || l.source === "hub_sensor") &&
        l.room_name !== null &&
        Date.parse(l.updated_at) <= atMs &&
        minutesAgo(atMs, l.updated_at) <= staleMinutes,
    );
    if (placed.length !== 1) {
      if (placed.length > 1)
        this.ctx.log.debug({ sensor_id: sensorId, persons: placed.map((l) => l.person_id) }, "presence: several persons placed, nobody inferred");
      return;
    }
    const who = placed[0];
    await this.apply({
      person_id: who.person_id,
      person_name: await displayNameOf(this.ctx, who.person_id),
      room_name: room,
      source: "hub_sensor",
      sensor_id: sensorId,
      confidence: INFERRED_CONFIDENCE,
      atMs,
      direction_raw: null,
      direction_semantic: null,
    });
  }

  private async apply(ev: Evidence): Promise<void> {
    const room = await this.resolveRoom(ev.room_name);
    const published = await this.ctx.db.transaction((trx) => this.applyIn(trx, ev, room));
    if (published) this.ctx.bus.publish("sensor.event", published);
  }

  /**
   * Many continuous-tracking fixes, in the order given, inside the caller's transaction with a
   * handful of statements for all of them (tracking-fixes), the writes queued on the caller's
   * batch. Returns the `location` events to publish once it commits, in order. `locked`: the
   * locations read ahead in the transaction (tracking-fixes' lockForFixes); anyone it misses is read here.
   */
  applyTrackingFixes(batch: WriteBatch, fixes: readonly { fix: TrackingFix; room: ResolvedRoom }[], locked?: LockedLocations): Promise<SensorEvent[]> {
    return applyFixesIn(
      batch,
      fixes.map(({ fix, room }) => ({ ev: { ...fix, source: "cts", direction_raw: null, direction_semantic: null }, room })),
      this.limits(),
      locked,
    );
  }

  /** The household's room of that name (its id and spelling), read before a transaction opens: SQLite has one connection. */
  async resolveRoom(roomName: string): Promise<ResolvedRoom> {
    const found = await findRoomByName(this.ctx, roomName);
    return { id: found ? String(found.id) : null, name: found?.name ?? roomName };
  }

  private async applyIn(trx: Knex, ev: Evidence, room: ResolvedRoom): Promise<SensorEvent | null> {
    const prev = (await lockPersonLocations(trx, [ev.person_id])).get(ev.person_id) ?? null;
    const step = locationStep(prev, ev, room, this.limits());
    if (!step) return null;
    if (step.transition) await recordTransition(trx, step.transition);
    await writePersonLocation(trx, step.next);
    if (step.append) await appendLocationChange(trx, step.append);
    else {
      const stay = await latestLocationChange(trx, ev.person_id);
      if (stay) await setChangeQuality(trx, stay.id, step.next.mean_quality ?? ev.confidence, step.next.quality_samples);
    }
    return step.event;
  }

  private limits(): LocationLimits {
    return { lock_seconds: this.ctx.settings.cts.lock_seconds, stale_timeout_minutes: this.ctx.settings.person_tracking.stale_timeout_minutes };
  }
}
