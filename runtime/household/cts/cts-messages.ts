/**
 * The decoded shapes of the continuous-tracking messages (snake_case as in the .proto files;
 * fixed64 as decimal strings, enums as their names). Only the fields careflow reads are typed.
 */

export interface DecodedBox {
  x_min: number;
  y_min: number;
  x_max: number;
  y_max: number;
}

export interface DecodedDetection {
  detection_id: string;
  bbox: DecodedBox | null;
  confidence: number;
  floor_point: { x_mm: string; y_mm: string; calibrated: boolean } | null;
  posture: string;
  ph_id: string;
}

export interface DecodedSnapshot {
  ph_id: string;
  identity_id: string;
  effective_identity_id: string;
  top_probability: number;
  mean_quality: number;
}

export interface DecodedTrackingEvent {
  camera_id: string;
  event_time_unix_ns: string;
  frame_ref: { minio_key: string; width: number; height: number; capture_time_unix_ns: string } | null;
  detections: DecodedDetection[];
  room_name: string;
  event_id: string;
  identity_snapshots: DecodedSnapshot[];
}

export interface DecodedRevision {
  ph_id: string;
  revision_id: string;
  revision_time_unix_ns: string;
  previous_identity_id: string;
  new_identity_id: string;
  effective_identity_id: string;
  map_identity_id: string;
  reason: string;
}

export interface DecodedSignal {
  signal_id: string;
  identity_id: string;
  kind: string | number;
  severity: string | number;
  value: number;
  has_baseline: boolean;
  baseline: number;
  has_z_score: boolean;
  z_score: number;
  window_start_unix_ns: string;
  window_end_unix_ns: string;
  emitted_at_unix_ns: string;
  context_json: string;
  algorithm_version: number;
  algorithm_name: string;
  evidence_grade: string;
}

export interface DecodedSceneSample {
  keyframe_id: string;
  camera_id: string;
  minio_key: string;
  captured_at_unix_ns: string;
  tag_reason: string | number;
  annotations_json: string;
  expires_at_unix_ns: string;
  ph_id: string;
}

export interface DecodedPresence {
  ph_id: string;
  identity_id: string;
  event_type: string | number;
  room_name: string;
  event_time_unix_ns: string;
}

export interface DecodedDwell extends DecodedPresence {
  duration_s: number;
}
