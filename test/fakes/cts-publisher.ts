/**
 * A stand-in for the continuous-tracking service: publishes protobuf messages on the streams
 * careflow consumes, exactly as the tracking service would (one message per NATS message,
 * with a `Nats-Msg-Id`). Used by `npm run fake-cts`, the tests and the benchmark.
 */
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamClient } from "@nats-io/jetstream";
import { encodeMessage, msToNs } from "../../runtime/household/cts/cts-codec";
import { ensureStream } from "../../runtime/household/cts/cts-link";
import { allStreamNames, streamNames, type StreamKey } from "../../runtime/household/cts/cts-streams";

type Connection = Awaited<ReturnType<typeof connect>>;

export interface PersonInFrame {
  ph_id: string;
  /** "" or "unknown": a track nobody was recognised on. */
  identity_id: string;
  probability?: number;
  posture?: string;
}

export interface EventSpec {
  camera_id: string;
  room_name?: string;
  people: PersonInFrame[];
  event_id: string;
  /** Capture time (epoch ms); now when absent. */
  at?: number;
}

export interface SignalSpec {
  signal_id: string;
  identity_id: string;
  kind: string;
  severity: "info" | "warning" | "emergency";
  value?: number;
  minutes?: number;
  at?: number;
}

export interface RevisionSpec {
  revision_id: string;
  ph_id: string;
  previous_identity_id: string;
  new_identity_id: string;
  reason?: string;
  at?: number;
}

const upper = (s: string) => s.toUpperCase();

export function trackingEventBytes(e: EventSpec, now = Date.now()): Uint8Array {
  const at = e.at ?? now;
  return encodeMessage("TrackingEvent", {
    camera_id: e.camera_id,
    event_time_unix_ns: msToNs(at),
    frame_ref: { minio_key: `frames/${e.camera_id}/${at}.jpg`, width: 1280, height: 720, frame_index: at, capture_time_unix_ns: msToNs(at) },
    detections: e.people.map((p, i) => ({
      detection_id: `${e.event_id}-${i}`,
      bbox: { x_min: 100 + i * 200, y_min: 100, x_max: 250 + i * 200, y_max: 600 },
      confidence: 0.9,
      posture: p.posture ?? "standing",
      ph_id: p.ph_id,
      floor_point: { x_mm: 1000 + i * 500, y_mm: 2000, calibrated: true },
    })),
    room_name: e.room_name ?? "",
    event_id: e.event_id,
    identity_snapshots: e.people.map((p) => ({
      ph_id: p.ph_id,
      identity_id: p.identity_id,
      effective_identity_id: p.identity_id,
      top_probability: p.probability ?? 0.92,
    })),
  });
}

export function signalBytes(s: SignalSpec, now = Date.now()): Uint8Array {
  const end = s.at ?? now;
  const start = end - (s.minutes ?? 10) * 60_000;
  return encodeMessage("DementiaSignal", {
    signal_id: s.signal_id,
    identity_id: s.identity_id,
    kind: `DEMENTIA_SIGNAL_KIND_${upper(s.kind)}`,
    severity: `DEMENTIA_SIGNAL_SEVERITY_${upper(s.severity)}`,
    value: s.value ?? 1,
    window_start_unix_ns: msToNs(start),
    window_end_unix_ns: msToNs(end),
    emitted_at_unix_ns: msToNs(end),
    context_json: JSON.stringify({ source: "fake-cts" }),
    algorithm_version: 1,
    algorithm_name: `${s.kind}_v1`,
    evidence_grade: "experimental",
  });
}

export function revisionBytes(r: RevisionSpec, now = Date.now()): Uint8Array {
  return encodeMessage("IdentityRevision", {
    ph_id: r.ph_id,
    revision_id: r.revision_id,
    revision_time_unix_ns: msToNs(r.at ?? now),
    previous_identity_id: r.previous_identity_id,
    new_identity_id: r.new_identity_id,
    effective_identity_id: r.new_identity_id,
    reason: r.reason ?? "identity_change",
  });
}

export class CtsPublisher {
  private constructor(
    private readonly nc: Connection,
    private readonly js: JetStreamClient,
    readonly prefix: string,
  ) {}

  /** Connects and makes sure the six streams exist (careflow may not have started yet). */
  static async connect(url: string, prefix: string): Promise<CtsPublisher> {
    const nc = await connect({ servers: url, name: "fake-cts" });
    const jsm = await jetstreamManager(nc);
    for (const n of allStreamNames(prefix)) await ensureStream(jsm, n);
    return new CtsPublisher(nc, jetstream(nc), prefix);
  }

  async raw(stream: StreamKey, data: Uint8Array, msgID?: string): Promise<number> {
    const ack = await this.js.publish(streamNames(this.prefix, stream).subject, data, msgID ? { msgID } : undefined);
    return ack.seq;
  }

  event(e: EventSpec): Promise<number> {
    return this.raw("tracking.events", trackingEventBytes(e), e.event_id);
  }

  /** Rose on the hall camera, events `from` to `from + n - 1` in turn in the Kitchen and (odd) the Hallway; `atOf` gives a capture time, else now. */
  async roseBetweenRooms(from: number, n: number, idPrefix: string, atOf?: (i: number) => number): Promise<void> {
    for (let i = from; i < from + n; i++)
      await this.event({
        camera_id: "hall-cam",
        room_name: i % 2 ? "Hallway" : "Kitchen",
        people: [{ ph_id: "ph-r", identity_id: "rose" }],
        event_id: `${idPrefix}-${i}`,
        ...(atOf ? { at: atOf(i) } : {}),
      });
  }

  signal(s: SignalSpec): Promise<number> {
    return this.raw("tracking.signals", signalBytes(s), `${s.signal_id}@${s.severity}`);
  }

  revision(r: RevisionSpec): Promise<number> {
    return this.raw("tracking.revisions", revisionBytes(r), r.revision_id);
  }

  async close(): Promise<void> {
    await this.nc.drain();
  }
}
