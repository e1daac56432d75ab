/**
 * `scene.samples`, `tracking.presence` and `tracking.dwell`. Scene samples go to the bus once
 * committed (care/services/perception/scene-samples.ts fetches, analyses and remembers them); presence and dwell events are
 * decoded, checked and recorded as applied: the spec plans rule triggers on them, none yet.
 */
import type { Knex } from "knex";
import type { PlatformContext } from "../../platform/context";
import { isoAt } from "../../platform/core/clock";
import type { SceneSampleEvent } from "../../platform/core/event-bus";
import { enumName, type AfterCommit, type Applier } from "./applier";
import { decodeDwell, decodePresence, decodeSceneSample, nsToMs, type DecodeResult } from "./cts-codec";
import type { DecodedPresence, DecodedSceneSample } from "./cts-messages";

export class SceneSamplesApplier implements Applier<DecodedSceneSample, DecodedSceneSample> {
  constructor(private readonly ctx: PlatformContext) {}

  decode = decodeSceneSample;

  key(s: DecodedSceneSample): string {
    return s.keyframe_id;
  }

  check(s: DecodedSceneSample, nowMs: number): string | null {
    if (!s.keyframe_id) return "scene sample without a keyframe_id";
    if (!s.minio_key) return `scene sample ${s.keyframe_id} without a keyframe (minio_key)`;
    const expires = nsToMs(s.expires_at_unix_ns);
    if (expires !== null && expires < nowMs) return `scene sample ${s.keyframe_id} expired`;
    return null;
  }

  plan(s: DecodedSceneSample): Promise<DecodedSceneSample> {
    return Promise.resolve(s);
  }

  commit(_trx: Knex, s: DecodedSceneSample): Promise<AfterCommit[]> {
    const captured = nsToMs(s.captured_at_unix_ns) ?? this.ctx.clock.now();
    let annotations: Record<string, unknown> = {};
    try {
      const parsed: unknown = s.annotations_json ? JSON.parse(s.annotations_json) : {};
      if (typeof parsed === "object" && parsed !== null) annotations = parsed as Record<string, unknown>;
    } catch {
      annotations = {};
    }
    const expires = nsToMs(s.expires_at_unix_ns);
    const sample: SceneSampleEvent = {
      keyframe_id: s.keyframe_id,
      camera_id: s.camera_id,
      minio_key: s.minio_key,
      captured_at: isoAt(captured),
      tag_reason: enumName(s.tag_reason, "TAG_REASON_") ?? "unspecified",
      expires_at: expires === null ? null : isoAt(expires),
      annotations,
      ph_id: s.ph_id,
    };
    return Promise.resolve([() => this.ctx.bus.publish("cts.scene_sample", sample)]);
  }
}

/** tracking.presence (appeared / disappeared) and tracking.dwell (started / ended). */
export class TrackEventsApplier implements Applier<DecodedPresence, DecodedPresence> {
  constructor(
    private readonly decoder: (d: Uint8Array) => DecodeResult<DecodedPresence>,
    private readonly enumPrefix: string,
  ) {}

  static presence(): TrackEventsApplier {
    return new TrackEventsApplier(decodePresence, "PRESENCE_EVENT_TYPE_");
  }

  static dwell(): TrackEventsApplier {
    return new TrackEventsApplier(decodeDwell, "DWELL_EVENT_TYPE_");
  }

  decode(d: Uint8Array): DecodeResult<DecodedPresence> {
    return this.decoder(d);
  }

  key(): null {
    return null;
  }

  check(e: DecodedPresence): string | null {
    if (!e.ph_id) return "track event without a ph_id";
    if (!enumName(e.event_type, this.enumPrefix)) return `track event of an unspecified type (${String(e.event_type)})`;
    return null;
  }

  plan(e: DecodedPresence): Promise<DecodedPresence> {
    return Promise.resolve(e);
  }

  commit(): Promise<AfterCommit[]> {
    return Promise.resolve([]);
  }
}
