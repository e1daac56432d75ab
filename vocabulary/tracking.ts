/** What the tracking link reports: dementia signals, room transitions, room trends, tracking windows. */

export interface DementiaSignal {
  id: number;
  signal_id: string;
  person_id: string;
  kind: string;
  severity: string;
  details: Record<string, unknown>;
  started_at: string | null;
  acknowledged_at: string | null;
  /** Who acknowledged it (a key's name, a chat user) and what they said. */
  acknowledged_by: string | null;
  feedback: string | null;
  created_at: string;
}

/** Every field narrows; an absent or empty list does not. Ranges include both ends. */
export interface SignalQuery {
  signal_id?: string;
  id?: number;
  limit?: number;
  kinds?: readonly string[];
  person_ids?: readonly string[];
  unacknowledged?: boolean;
  acknowledged_between?: readonly [string, string];
  created_between?: readonly [string, string];
}

export interface RoomTransition {
  id: number;
  person_id: string;
  person_name: string | null;
  sensor_id: string | null;
  /** left-to-right, towards-camera, ... as the camera reported it. */
  direction_raw: string | null;
  /** entering, exiting, approaching_exit, entering_depth or stationary. */
  semantic: string | null;
  from_room_id: string | null;
  from_room_name: string | null;
  to_room_id: string | null;
  to_room_name: string | null;
  confidence: number;
  timestamp: string;
}

export interface RoomTrend {
  room_id: string;
  room_name: string | null;
  overall_severity: string;
  clutter_score: number | null;
  trend_direction: string | null;
  updated_at: string;
}

/** Movement between rooms and the rooms' object trends. */
export interface TrackingWindowQuery {
  since: string;
  until: string;
  sample_period_s: number;
  cameras: readonly string[];
  rooms: readonly string[];
  max_frames: number;
}

export interface TrackingWindowFrame {
  frame_time: string;
  camera_id: string;
  room_name: string | null;
  detections: Array<{ ph_id: string; identity_id: string | null; confidence: number; posture: string | null; bbox: Record<string, number> | null }>;
  identities: string[];
}

export interface TrackingWindow {
  frames: TrackingWindowFrame[];
  /** True when more frames than max_frames were in the window and some were left out. */
  trimmed: boolean;
}
