/**
 * Scene samples as the tracking service publishes them on `scene.samples` (protobuf
 * `SceneSample`, the keyframe in its object store under `minio_key`).
 */
import { encodeMessage, msToNs } from "../../runtime/household/cts/cts-codec";
import type { CtsPublisher } from "./cts-publisher";

export interface SceneSampleSpec {
  keyframe_id: string;
  camera_id: string;
  minio_key: string;
  /** Capture time (epoch ms); now when absent. */
  at?: number;
  /** Epoch ms after which the keyframe may be gone; none when absent. */
  expires_at?: number;
  tag_reason?: "periodic" | "identity_changed" | "hazard" | "dwell_start" | "fall" | "dementia_signal";
  ph_id?: string;
  annotations?: Record<string, unknown>;
}

export function sceneSampleBytes(s: SceneSampleSpec, now = Date.now()): Uint8Array {
  return encodeMessage("SceneSample", {
    keyframe_id: s.keyframe_id,
    camera_id: s.camera_id,
    minio_key: s.minio_key,
    captured_at_unix_ns: msToNs(s.at ?? now),
    tag_reason: `TAG_REASON_${(s.tag_reason ?? "periodic").toUpperCase()}`,
    annotations_json: JSON.stringify(s.annotations ?? {}),
    expires_at_unix_ns: s.expires_at === undefined ? "0" : msToNs(s.expires_at),
    ph_id: s.ph_id ?? "",
  });
}

/** Publishes one sample (its `keyframe_id` as the message id, as the service does). */
export const publishSceneSample = (pub: CtsPublisher, s: SceneSampleSpec): Promise<number> => pub.raw("scene.samples", sceneSampleBytes(s), s.keyframe_id);
