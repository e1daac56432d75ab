/**
 * Continuous tracking, assembled: when `cts.enabled`, a pump per stream with its applier, the
 * broker link feeding them, the live frames and the hourly pruning of what the streams leave
 * behind. When disabled nothing connects and `/cts/*` answers `cts.disabled`.
 *
 * With several instances one consumes the streams: the holder of the `cts` lease. Sharing the
 * durable consumers would split each stream between instances, so a person's fixes would be
 * applied out of order, and a revision could not be kept in turn with the events it corrects.
 * The others stand by; a new holder picks up where the durable consumers were.
 */
import type { PlatformContext } from "../../platform/context";
import { startRetention } from "../../platform/db/retention";
import { leasesOf } from "../../platform/cluster/cluster";
import { whileHolding } from "../../platform/cluster/leases";
import type { LocationFusion } from "../tracking/location-fusion";
import type { Applier } from "./applier";
import { forgetAppliedBefore } from "./cts-ledger.store";
import { forgetFramesBefore, FRAME_KEEP_MS } from "./cts-frames.store";
import { CtsLink } from "./cts-link";
import { CtsStatus, type CtsHealth } from "./cts-status";
import { CTS_LEASE, streamNames, type StreamKey } from "./cts-streams";
import { LiveFrames } from "./live-frames";
import { RecentRevisions, REVISION_KEEP_MS } from "./recent-revisions";
import { forgetRevisedTracksBefore, revisedTracksSince } from "./revised-tracks.store";
import { SceneSamplesApplier, TrackEventsApplier } from "./low-rate.applier";
import { RevisionsApplier } from "./revisions.applier";
import { SignalsApplier } from "./signals.applier";
import { StreamPump } from "./stream-pump";
import { TrackingEventsApplier } from "./tracking-events.applier";

/** A pump hands each applier back only what that applier decoded and planned. */
const erased = <T, P>(a: Applier<T, P>): Applier<unknown, unknown> => a as unknown as Applier<unknown, unknown>;

/** Applied marks are kept a day: far longer than the broker would redeliver anything. */
const APPLIED_KEEP_DAYS = 1;

export class CtsService {
  readonly status: CtsStatus;
  private readonly pumps: StreamPump[] = [];
  private readonly revisions = new RecentRevisions();
  private readonly stops: Array<() => Promise<void>> = [];

  constructor(
    private readonly ctx: PlatformContext,
    fusion: LocationFusion,
  ) {
    const { cts } = ctx.settings;
    this.status = new CtsStatus(cts.enabled, cts.nats_url);
    if (!cts.enabled) return;
    const live = new LiveFrames(ctx);
    const revisions = this.revisions;
    const appliers: Record<StreamKey, Applier<unknown, unknown>> = {
      "tracking.events": erased(new TrackingEventsApplier(ctx, fusion, live, revisions)),
      "tracking.revisions": erased(new RevisionsApplier(ctx, revisions)),
      "tracking.signals": erased(new SignalsApplier(ctx)),
      "scene.samples": erased(new SceneSamplesApplier(ctx)),
      "tracking.presence": erased(TrackEventsApplier.presence()),
      "tracking.dwell": erased(TrackEventsApplier.dwell()),
    };
    for (const [key, applier] of Object.entries(appliers) as Array<[StreamKey, Applier<unknown, unknown>]>) {
      const names = streamNames(cts.stream_prefix, key);
      this.pumps.push(new StreamPump(ctx, names, applier, this.status.of(names.stream)));
    }
  }

  get enabled(): boolean {
    return this.status.enabled;
  }

  start(): void {
    if (!this.enabled || this.stops.length) return;
    this.status.state = "standby";
    this.stops.push(
      whileHolding(leasesOf(this.ctx), CTS_LEASE, () => {
        const link = new CtsLink(this.ctx, this.status, this.pumps);
        this.status.state = "connecting";
        this.ctx.log.info({}, "tracking: this instance consumes the streams");
        this.restoreRevisions();
        link.start();
        this.ctx.bus.publish("cts.consuming", {});
        return async () => {
          await link.stop();
          this.status.state = "standby";
          this.status.connectedSince = null;
        };
      }),
      startRetention(this.ctx, {
        what: "tracking frames",
        days: FRAME_KEEP_MS / 86_400_000,
        deleteBefore: (c, signal) => forgetFramesBefore(this.ctx.db, c, signal),
      }),
      startRetention(this.ctx, {
        what: "applied tracking messages",
        days: APPLIED_KEEP_DAYS,
        deleteBefore: (c, signal) => forgetAppliedBefore(this.ctx.db, c, signal),
      }),
      startRetention(this.ctx, {
        what: "tracking revisions remembered",
        days: REVISION_KEEP_MS / 86_400_000,
        deleteBefore: (c, signal) => forgetRevisedTracksBefore(this.ctx.db, Date.parse(c), signal),
      }),
    );
  }

  /**
   * The revisions whoever consumed before applied (another instance, or this one before a
   * restart), taken back before any message of this turn at the streams is planned: both
   * identity streams wait their turn behind it. Unreadable, tracking goes on without them.
   */
  private restoreRevisions(): void {
    void this.revisions.inTurn(async () => {
      const now = this.ctx.clock.now();
      try {
        this.revisions.restore(await revisedTracksSince(this.ctx.db, now - REVISION_KEEP_MS), now);
      } catch (err) {
        this.ctx.log.warn({ err }, "tracking: the recent identity revisions could not be read; late events of revised tracks keep their identity");
      }
    });
  }

  async stop(): Promise<void> {
    for (const s of this.stops.splice(0)) await s();
  }

  /** Resolves when every message received so far was handled; for tests. */
  async idle(): Promise<void> {
    await Promise.all(this.pumps.map((p) => p.idle()));
  }

  /** Each stream's messages waiting for their batch, by stream name (empty while tracking is off). */
  queueDepths(): Record<string, number> {
    return Object.fromEntries(this.pumps.map((p) => [p.names.stream, p.queued]));
  }

  health(): CtsHealth {
    return this.status.health();
  }
}
