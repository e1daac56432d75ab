/**
 * The tracking window as a run sees it, one shape for the `cts_window_poll` step's outputs and
 * the `cts_window` trigger's payload (the spec makes them symmetric): `trigger_id`,
 * `window_start`, `window_end`, `cameras`, `rooms`, `frames`, `summary`, `partial`.
 */
import type { TrackingWindow, TrackingWindowFrame } from "../../vocabulary/tracking";

export interface WindowSummary {
  distinct_identities: number;
  detection_count: number;
  rooms: string[];
}

export interface WindowPayload {
  [key: string]: unknown;
  trigger_id: string;
  window_start: string;
  window_end: string;
  cameras: string[];
  rooms: string[];
  frames: TrackingWindowFrame[];
  summary: WindowSummary;
  partial: boolean;
}

export interface WindowBounds {
  trigger_id: string;
  startMs: number;
  endMs: number;
}

const bounds = (b: WindowBounds) => ({
  trigger_id: b.trigger_id,
  window_start: new Date(b.startMs).toISOString(),
  window_end: new Date(b.endMs).toISOString(),
});

/** The window read: cameras and rooms are those the frames show. */
export function windowPayload(b: WindowBounds, window: TrackingWindow): WindowPayload {
  const rooms = [...new Set(window.frames.map((f) => f.room_name).filter((r): r is string => r !== null))];
  const identities = new Set(window.frames.flatMap((f) => f.identities));
  return {
    ...bounds(b),
    cameras: [...new Set(window.frames.map((f) => f.camera_id))],
    rooms,
    frames: window.frames,
    summary: { distinct_identities: identities.size, detection_count: window.frames.reduce((n, f) => n + f.detections.length, 0), rooms },
    partial: window.trimmed,
  };
}

/** The spec's answer when there is no window source: nothing, `partial` true, the cameras and rooms asked for. */
export function emptyWindowPayload(b: WindowBounds, asked: { cameras: readonly string[]; rooms: readonly string[] }): WindowPayload {
  return {
    ...bounds(b),
    cameras: [...asked.cameras],
    rooms: [...asked.rooms],
    frames: [],
    summary: { distinct_identities: 0, detection_count: 0, rooms: [] },
    partial: true,
  };
}
