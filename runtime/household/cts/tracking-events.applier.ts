/**
 * `tracking.events`: each detection whose track (`ph_id`) carries a known identity places that
 * person in the event's room (else the camera's room from `cts.cameras`), through the location
 * state's source-precedence lock; the frame is kept for the tracking window and offered to
 * `/ws` as a live frame. Events captured more than `cts.stale_seconds` ago are dropped.
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { isoAt } from "../../platform/core/clock";
import type { LocationFusion, ResolvedRoom, TrackingFix } from "../tracking/location-fusion";
import { lockForFixes, type LockedLocations } from "../tracking/tracking-fixes";
import { displayNameOf, displayNamesOf } from "../persons/persons.service";
import { isKnownIdentity, type AfterCommit, type Applier } from "./applier";
import { decodeTrackingEvent, nsToMs } from "./cts-codec";
import type { DecodedTrackingEvent } from "./cts-messages";
import { queueFrames, type FrameDetection } from "./cts-frames.store";
import type { LiveDetection, LiveFrame, LiveFrames } from "./live-frames";
import type { RecentRevisions } from "./recent-revisions";
import type { WriteBatch } from "../../platform/db/write-batch";

interface Plan {
  event: DecodedTrackingEvent;
  atMs: number;
  room: ResolvedRoom | null;
  fixes: TrackingFix[];
  detections: FrameDetection[];
  names: Map<string, string | null>;
}

const CACHE_MS = 5000;

export class TrackingEventsApplier implements Applier<DecodedTrackingEvent, Plan, LockedLocations | undefined> {
  private readonly cache = new Map<string, { at: number; value: unknown }>();

  constructor(
    private readonly ctx: PlatformContext,
    private readonly fusion: LocationFusion,
    private readonly live: LiveFrames,
    private readonly revisions: RecentRevisions,
  ) {}

  /** In turn with the other stream of identities (RecentRevisions). */
  readonly asyncCommit = true;

  inTurn<R>(work: () => Promise<R>): Promise<R> {
    return this.revisions.inTurn(work);
  }

  decode = decodeTrackingEvent;

  key(e: DecodedTrackingEvent): string | null {
    return e.event_id || null;
  }

  check(e: DecodedTrackingEvent, nowMs: number): string | null {
    if (!e.camera_id) return "tracking event without a camera_id";
    const captured = capturedAt(e);
    const staleMs = this.ctx.settings.cts.stale_seconds * 1000;
    if (captured !== null && nowMs - captured > staleMs)
      return `tracking event captured ${Math.round((nowMs - captured) / 1000)} s ago (stale after ${this.ctx.settings.cts.stale_seconds} s)`;
    return null;
  }

  /**
   * The rooms and names the batch's events need that are not known or were read more than
   * CACHE_MS ago, read together (the names in one query). Read by plan one at a time, a batch
   * of people first seen, or whose names expired together, waited for a read per person inside
   * the stream's turn: on PostgreSQL a round trip each.
   */
  async prepare(events: readonly DecodedTrackingEvent[]): Promise<void> {
    const now = this.ctx.clock.now();
    const rooms = new Set<string>();
    const ids = new Set<string>();
    for (const e of events) {
      const roomName = this.roomNameOf(e);
      if (roomName && !this.fresh(`room:${roomName}`, now)) rooms.add(roomName);
      for (const s of e.identity_snapshots) {
        const said = s.effective_identity_id || s.identity_id;
        if (isKnownIdentity(said) && !this.fresh(`name:${said}`, now)) ids.add(said);
      }
    }
    const [names] = await Promise.all([
      displayNamesOf(this.ctx, [...ids]),
      ...[...rooms].map(async (r) => this.remember(`room:${r}`, now, await this.fusion.resolveRoom(r))),
    ]);
    for (const [id, name] of names) this.remember(`name:${id}`, now, name);
  }

  async plan(e: DecodedTrackingEvent): Promise<Plan> {
    const now = this.ctx.clock.now();
    const captured = capturedAt(e);
    // Never in the future: a camera's clock ahead of ours must not hold the location.
    const atMs = captured === null || captured > now ? now : captured;
    const roomName = this.roomNameOf(e);
    const room = roomName ? await this.cached(`room:${roomName}`, () => this.fusion.resolveRoom(roomName)) : null;
    const identities = new Map(e.identity_snapshots.map((s) => [s.ph_id, s]));
    const detections: FrameDetection[] = e.detections.map((d) => {
      const snap = identities.get(d.ph_id);
      const said = snap ? snap.effective_identity_id || snap.identity_id : "";
      const identity = this.revisions.identityOf(d.ph_id, isKnownIdentity(said) ? said : null, atMs, now);
      return {
        ph_id: d.ph_id,
        identity_id: identity,
        confidence: d.confidence,
        identity_confidence: snap ? snap.top_probability : null,
        posture: d.posture || null,
        bbox: d.bbox,
      };
    });
    // One fix per person: the most confident detection of them in this frame.
    const best = new Map<string, FrameDetection>();
    for (const d of detections) {
      if (!d.identity_id || !d.ph_id) continue;
      const prev = best.get(d.identity_id);
      if (!prev || (d.identity_confidence ?? d.confidence) > (prev.identity_confidence ?? prev.confidence)) best.set(d.identity_id, d);
    }
    const names = new Map<string, string | null>();
    for (const id of best.keys()) names.set(id, await this.cached(`name:${id}`, () => displayNameOf(this.ctx, id)));
    const fixes: TrackingFix[] = room
      ? [...best.values()].map((d) => ({
          person_id: d.identity_id as string,
          person_name: names.get(d.identity_id as string) ?? null,
          room_name: room.name,
          sensor_id: e.camera_id,
          confidence: clamp01(d.identity_confidence || d.confidence),
          atMs,
          ph_id: d.ph_id,
        }))
      : [];
    return { event: e, atMs, room, fixes, detections, names };
  }

  commit(trx: Knex, p: Plan, batch: WriteBatch): Promise<AfterCommit[]> {
    return this.commitMany(trx, [p], batch);
  }

  /** The locations of everyone the batch's fixes place, locked for the transaction. */
  async readForCommit(trx: Knex, plans: readonly Plan[]): Promise<LockedLocations | undefined> {
    if (!this.ctx.settings.person_tracking.enabled) return undefined;
    return lockForFixes(trx, [...new Set(plans.flatMap((p) => (p.room ? p.fixes.map((f) => f.person_id) : [])))]);
  }

  /** Frames, locations and history of many events in a few statements (tracking-fixes), in the events' order. */
  async commitMany(_trx: Knex, plans: readonly Plan[], batch: WriteBatch, read?: LockedLocations): Promise<AfterCommit[]> {
    queueFrames(
      batch,
      plans.map((p) => ({
        event_id: p.event.event_id || null,
        camera_id: p.event.camera_id,
        room_name: p.room?.name ?? null,
        event_time: isoAt(p.atMs),
        detections: p.detections,
      })),
    );
    const after: AfterCommit[] = [];
    if (this.ctx.settings.person_tracking.enabled) {
      const fixes = plans.flatMap((p) => (p.room ? p.fixes.map((fix) => ({ fix, room: p.room as ResolvedRoom })) : []));
      for (const published of await this.fusion.applyTrackingFixes(batch, fixes, read)) after.push(() => this.ctx.bus.publish("sensor.event", published));
    }
    for (const p of plans) after.push(() => this.live.offer(liveFrame(p)));
    if (plans.length > 0) {
      const earliest_ms = Math.min(...plans.map((p) => p.atMs));
      after.push(() => this.ctx.bus.publish("cts.frames", { earliest_ms }));
    }
    return after;
  }

  /**
   * Rooms and names change rarely and events come many a second: each is read at most every
   * few seconds (a renamed room or person shows within that).
   */
  private async cached<V>(key: string, read: () => Promise<V>): Promise<V> {
    const now = this.ctx.clock.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < CACHE_MS) return hit.value as V;
    return this.remember(key, now, await read());
  }

  private fresh(key: string, now: number): boolean {
    const hit = this.cache.get(key);
    return hit !== undefined && now - hit.at < CACHE_MS;
  }

  private remember<V>(key: string, at: number, value: V): V {
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { at, value });
    return value;
  }

  /** The event's room, else its camera's (`cts.cameras`). */
  private roomNameOf(e: DecodedTrackingEvent): string | null {
    return e.room_name.trim() || (this.ctx.settings.cts.cameras.find((c) => c.id === e.camera_id)?.location ?? null);
  }
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

function capturedAt(e: DecodedTrackingEvent): number | null {
  return nsToMs(e.frame_ref?.capture_time_unix_ns) ?? nsToMs(e.event_time_unix_ns);
}

function liveFrame(p: Plan): LiveFrame {
  const e = p.event;
  const detections: LiveDetection[] = p.detections.map((d) => {
    const source = e.detections.find((x) => x.ph_id === d.ph_id);
    const fp = source?.floor_point;
    return {
      ...d,
      display_name: d.identity_id ? (p.names.get(d.identity_id) ?? null) : null,
      floor_point: fp ? { x_mm: Number(fp.x_mm), y_mm: Number(fp.y_mm), calibrated: fp.calibrated } : null,
    };
  });
  return {
    type: "cts_live_frame",
    camera_id: e.camera_id,
    event_time: isoAt(p.atMs),
    room_name: p.room?.name ?? null,
    // The frame lives in the tracking service's object store; careflow does not serve it.
    frame_url: null,
    frame_width: e.frame_ref?.width ?? null,
    frame_height: e.frame_ref?.height ?? null,
    detections,
  };
}
