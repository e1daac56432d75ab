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
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import type { PersonSighting, SensorEvent } from "../../platform/core/event-bus";
import { findRoomByName } from "../rooms/rooms.service";
import { sensorRoomName } from "../sensors/sensors.service";
import { displayNameOf } from "../persons/persons.service";
import { appendLocationChange, latestLocationChange, setChangeQuality } from "./location-history.store";
import { getPersonLocation, listPersonLocations, writePersonLocation, type LocationSource, type StoredLocation } from "./locations.store";
import { isoAt, minutesAgo, sameText } from "./match";
import { recordSighting } from "./sightings.store";
import { recordTransition } from "./transitions.store";

/** The confidence of a room inferred from a presence sensor: it says someone is there, not who. */
export const INFERRED_CONFIDENCE = 0.6;

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

export interface ResolvedRoom {
  id: string | null;
  name: string;
}

interface Evidence {
  ph_id?: string;
  person_id: string;
  person_name: string | null;
  room_name: string;
  source: LocationSource;
  sensor_id: string;
  confidence: number;
  atMs: number;
  direction_raw: string | null;
  direction_semantic: string | null;
}

export class LocationFusion {
  private tail: Promise<void> = Promise.resolve();
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
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.tail;
      await seen;
    } while (seen !== this.tail);
  }

  private enqueue(work: () => Promise<void>): void {
    this.tail = this.tail.then(work).catch((err: unknown) => this.ctx.log.error({ err }, "location fusion: an event was not applied"));
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
   * A continuous-tracking fix, applied inside the caller's transaction (the consumer marks the
   * message applied in the same one). Returns the `location` event to publish once it commits.
   */
  applyTrackingFix(trx: Knex, fix: TrackingFix, room: ResolvedRoom): Promise<SensorEvent | null> {
    return this.applyIn(trx, { ...fix, source: "cts", direction_raw: null, direction_semantic: null }, room);
  }

  /** The household's room of that name (its id and spelling), read before a transaction opens: SQLite has one connection. */
  async resolveRoom(roomName: string): Promise<ResolvedRoom> {
    const found = await findRoomByName(this.ctx, roomName);
    return { id: found ? String(found.id) : null, name: found?.name ?? roomName };
  }

  private async applyIn(trx: Knex, ev: Evidence, room: ResolvedRoom): Promise<SensorEvent | null> {
    const { ctx } = this;
    const prev = await getPersonLocation(trx, ev.person_id);
    // Evidence older than what placed the person now changes nothing (it was stored as a sighting).
    if (prev && Date.parse(prev.updated_at) > ev.atMs) return null;
    if (prev && heldByTracking(prev, ev, ctx.settings.cts.lock_seconds)) return null;
    const roomName = room.name;
    const roomId = room.id;
    const at = isoAt(ev.atMs);
    const stale = prev !== null && minutesAgo(ev.atMs, prev.updated_at) > ctx.settings.person_tracking.stale_timeout_minutes;
    const changed = prev === null || stale || !sameText(prev.room_name, roomName);
    const semantic = ev.direction_semantic && ev.direction_semantic !== "stationary" ? ev.direction_semantic : null;

    {
      if (changed || semantic) {
        const exiting = semantic === "exiting";
        const from = exiting || !changed ? { id: roomId, name: roomName } : { id: prev?.room_id ?? null, name: prev?.room_name ?? null };
        await recordTransition(trx, {
          person_id: ev.person_id,
          person_name: ev.person_name,
          sensor_id: ev.sensor_id,
          direction_raw: ev.direction_raw,
          semantic,
          from_room_id: from.id,
          from_room_name: from.name,
          to_room_id: exiting ? null : roomId,
          to_room_name: exiting ? null : roomName,
          confidence: ev.confidence,
          timestamp: at,
        });
      }
      const next: StoredLocation =
        changed || !prev
          ? {
              person_id: ev.person_id,
              room_id: roomId,
              room_name: roomName,
              source: ev.source,
              confidence: ev.confidence,
              updated_at: at,
              mean_quality: ev.confidence,
              quality_samples: 1,
            }
          : { ...prev, source: ev.source, confidence: ev.confidence, updated_at: at, ...addSample(prev, ev.confidence) };
      await writePersonLocation(trx, next);
      if (changed) {
        await appendLocationChange(trx, {
          person_id: ev.person_id,
          room_id: roomId,
          room_name: roomName,
          source: ev.source,
          confidence: ev.confidence,
          direction_semantic: semantic,
          timestamp: at,
          mean_quality: ev.confidence,
          quality_samples: 1,
          ph_id: ev.ph_id ?? null,
        });
      } else {
        const stay = await latestLocationChange(trx, ev.person_id);
        if (stay) await setChangeQuality(trx, stay.id, next.mean_quality ?? ev.confidence, next.quality_samples);
      }
    }

    if (!changed) return null;
    return {
      kind: "location",
      sensor_id: ev.sensor_id,
      room_name: roomName,
      input: {
        person_id: ev.person_id,
        person_name: ev.person_name,
        from_room: prev?.room_name ?? null,
        to_room: roomName,
        source: ev.source,
        direction_semantic: semantic,
      },
    };
  }
}

/**
 * The source-precedence lock: a continuous-tracking fix holds the person's room for
 * `cts.lock_seconds` against a weaker source (a camera batch, a presence sensor) that would
 * move them elsewhere; evidence for the same room still refreshes it.
 */
function heldByTracking(prev: StoredLocation, ev: Evidence, lockSeconds: number): boolean {
  if (ev.source === "cts" || prev.source !== "cts" || lockSeconds <= 0) return false;
  if (sameText(prev.room_name, ev.room_name)) return false;
  return ev.atMs - Date.parse(prev.updated_at) < lockSeconds * 1000;
}

/** The stay's running mean confidence with one more piece of evidence. */
function addSample(prev: StoredLocation, confidence: number): { mean_quality: number; quality_samples: number } {
  const n = prev.mean_quality === null ? 0 : prev.quality_samples;
  const mean = ((prev.mean_quality ?? 0) * n + confidence) / (n + 1);
  return { mean_quality: Math.round(mean * 1000) / 1000, quality_samples: n + 1 };
}
