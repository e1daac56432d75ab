/**
 * The in-process event bus: capabilities publish what happened in the home (a camera
 * batch is ready, an alert was acknowledged, ...) and the rules engine and notifiers
 * subscribe. Topics and their payloads are declared here so both sides are typed.
 */
import { EventEmitter } from "node:events";
import type { PartKind, PartState } from "../health/parts-board";

export interface BusTopics {
  /**
   * Something a sensor saw, from any source: a camera batch is ready, a terminal button was
   * pressed or sent a command, a presence sensor changed. `sensor_event` rules fire on each;
   * `occupancy_duration` rules follow the presence ones.
   */
  "sensor.event": SensorEvent;
  /**
   * A camera saw a known person or a visitor (household/identity): sightings and the location
   * state follow (household/tracking).
   */
  "person.sighted": PersonSighting;
  "alert.created": { alert_id: number; level: string };
  "alert.acknowledged": { alert_id: number; action: "dismiss" | "assist"; actor: string };
  /**
   * A send of an alert finished and its receipts were recorded (care/services/notify): `escalation` 0 is
   * the first send, `delivered` whether any channel reached someone. The metrics time the alert
   * loop from `alert.created` to its first `alert.sent` (docs/metrics.md).
   */
  "alert.sent": { alert_id: number; escalation: number; delivered: boolean };
  /** A camera frame was stored (household/media): the retention sweep arms for its expiry. */
  "media.stored": { media_id: number; captured_at: string };
  /** The rules changed (REST, editor deploy, import): triggers re-read them. */
  "rules.changed": Record<string, never>;
  /** An interactive prompt got its outcome (an answer from any channel, or its countdown): a voice conversation asking it ends. */
  "prompt.answered": { execution_id: number; step_id: number; channel: string; action: string };
  /** A quiz session ended (care/services/knowledge/delivery): the voice companion running it stops. */
  "quiz.ended": { session_id: number; status: string };
  /**
   * A dementia signal was stored and its person's alert profile lets it alert (household/cts):
   * the `dementia_signal` trigger fires its rules. The row stays `pending` until they were fired.
   */
  "cts.signal": { signal_id: string };
  /**
   * This instance took the `cts` lease and consumes the tracking streams (household/cts): the
   * `dementia_signal` trigger fires the signals still `pending`, committed by an instance that
   * stopped or died before it fired them.
   */
  "cts.consuming": Record<string, never>;
  /**
   * Tracking frames were stored (household/cts), the earliest captured at `earliest_ms`: the
   * `cts_window` trigger reads again a window that had closed before they were committed.
   */
  "cts.frames": { earliest_ms: number };
  /**
   * A scene keyframe sample arrived from continuous tracking (household/cts): care/services/perception
   * fetches its keyframe, analyses it and keeps the observation in semantic memory.
   */
  "cts.scene_sample": SceneSampleEvent;
  /**
   * An identity revision rewrote the location history of these people between `from` and `to`
   * (household/cts): the stored daily reports of those days are built again (care/services/reports).
   */
  "tracking.revised": { revision_id: string; person_ids: string[]; from: string; to: string };
  /** A member was registered (household/persons): the daily reports' midnight job arms for them. */
  "person.added": { person_id: string };
  /** A member was changed or removed (household/persons): the senior's language is read again (app/webapp). */
  "person.changed": { person_id: string };
  /** A webhook call reached its rule (its secret matched): the input journal keeps it. */
  "webhook.called": { rule_id: number; payload: unknown };
  /** A configured chat command came from an allowed chat: the input journal keeps it. */
  "chat.command": { command: string; args: string[]; text: string; chat_id: string };
  /**
   * One of careflow's own parts changed state (platform/health/parts-watch.ts, on the board's
   * tick): `system_health` rules fire on it. Each instance watches its own parts.
   */
  "part.changed": PartChangeEvent;
  /** A managed key was revoked or rotated (app/keys): sockets opened with it close, on every instance. */
  "key.revoked": { key_id: number };
  /**
   * A device called this instance (app/ops/health-parts.ts), at most every DEVICE_CONTACT_SHARE_MS
   * per device: the other instances' parts boards see its sign of life too, so the one firing
   * system_health rules does not take a device that calls another instance for silent.
   */
  "device.contact": { sensor_id: string; device_type: string; name: string };
  /** The hub's address and token were set on the Household page (household/hub): every instance reads them from the store. */
  "hub.configured": Record<string, never>;
}

export interface PartChangeEvent {
  part_id: string;
  kind: PartKind;
  name: string;
  from: PartState;
  to: PartState;
  /** ISO time the part entered `to`, and its last contact (null: never). */
  since: string;
  last_seen: string | null;
  /** The state it left: since when it was in it, and its last contact then. */
  previous_since: string;
  previous_last_seen: string | null;
  detail?: string;
}

export type Topic = keyof BusTopics;

/**
 * Which topics the other instances hear (docs/cluster.md "Events"): a subscriber opting in
 * (`otherInstances`) gets them from every instance. Not crossing: what is acted on where it
 * arrived (a sensor event fires its rules once, on the instance that received it), what the
 * web app's frames carry already (alert updates), and rules.changed, which the deploy notice
 * replaces (the other instances reload their flows first).
 */
export const CROSSES_INSTANCES: Readonly<Record<Topic, boolean>> = {
  "sensor.event": false,
  "person.sighted": false,
  "alert.created": true,
  "alert.acknowledged": true,
  "alert.sent": false,
  "media.stored": false,
  "rules.changed": false,
  "prompt.answered": true,
  "quiz.ended": true,
  "cts.signal": false,
  "cts.consuming": false,
  "cts.frames": false,
  "cts.scene_sample": false,
  "tracking.revised": true,
  "person.added": true,
  "person.changed": true,
  "webhook.called": false,
  "chat.command": false,
  "part.changed": false,
  "key.revoked": true,
  "device.contact": true,
  "hub.configured": true,
};

export interface SceneSampleEvent {
  keyframe_id: string;
  camera_id: string;
  minio_key: string;
  captured_at: string;
  /** `periodic`, `hazard`, `fall` ... (the proto's TagReason without its prefix, lower case). */
  tag_reason: string;
  /** After this the keyframe may be gone from the store; null: no expiry given. */
  expires_at: string | null;
  annotations: Record<string, unknown>;
  ph_id: string;
}

export interface PersonSighting {
  /** A person's id, or a visitor's stable id (`visitor-3`). */
  person_id: string;
  person_name: string | null;
  /** True for a visitor (an unknown face given a stable id). */
  visitor: boolean;
  sensor_id: string;
  room_name: string | null;
  confidence: number;
  /** Face box [x1, y1, x2, y2] in the frame. */
  bbox: number[];
  /** Epoch milliseconds the frame was taken. */
  at: number;
  /** The frame, relative to the data dir (a media store path). */
  media_path: string | null;
  /** From motion across the batch's frames, when asked for: raw and through the camera's movement_map. */
  direction_raw: string | null;
  direction_semantic: string | null;
}

interface SensorEventBase {
  sensor_id: string;
  room_name: string | null;
}

export type SensorEvent = SensorEventBase &
  (
    | { kind: "camera_batch"; media_paths: string[]; media_type: string | null; batch_id: number }
    | { kind: "button" | "command"; input: Record<string, unknown> }
    // A person's location changed (household/tracking): `input` says who, from where to where.
    | { kind: "location"; input: Record<string, unknown> }
    // `initial`: a state first read (a hub's states on connecting), not a change: occupancy
    // follows it, sensor_event rules do not fire on it.
    | { kind: "presence"; occupied: boolean; at: number; initial?: boolean }
  );

export class EventBus {
  private readonly emitter = new EventEmitter();
  /** The subscribers that also hear the other instances' events (CROSSES_INSTANCES). */
  private readonly others = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(100);
    this.others.setMaxListeners(100);
  }

  publish<T extends Topic>(topic: T, payload: BusTopics[T]): void {
    this.emitter.emit(topic, payload);
  }

  /** `otherInstances`: also what the other instances publish on a topic that crosses (a job running on one instance for all). */
  subscribe<T extends Topic>(topic: T, listener: (payload: BusTopics[T]) => void, opts: { otherInstances?: boolean } = {}): () => void {
    this.emitter.on(topic, listener);
    if (opts.otherInstances) this.others.on(topic, listener);
    return () => {
      this.emitter.off(topic, listener);
      this.others.off(topic, listener);
    };
  }

  /** An event another instance published: to the subscribers that asked for those only. */
  relay<T extends Topic>(topic: T, payload: BusTopics[T]): void {
    this.others.emit(topic, payload);
  }
}
