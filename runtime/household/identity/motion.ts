/**
 * Motion by centroid tracking across a batch's frames (spec "Camera topology"): each face
 * identity (a person or a visitor) seen in two frames or more is followed from its first box
 * to its last. A box that grows or shrinks by more than 20 % moved towards or away from the
 * camera; else a centroid that moved more than 5 % of the frame's width moved sideways; else
 * it stood still. The camera's `movement_map` turns the raw direction into a semantic one; a
 * raw direction absent from the map gives no transition.
 */

export type RawDirection = "left-to-right" | "right-to-left" | "towards-camera" | "away-from-camera" | "stationary";

export interface TrackPoint {
  frame: number;
  bbox: number[];
  width: number;
}

const SCALE_CHANGE = 0.2;
const SIDEWAYS = 0.05;

export function directionOf(points: readonly TrackPoint[]): RawDirection | null {
  if (points.length < 2) return null;
  const sorted = [...points].sort((a, b) => a.frame - b.frame);
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first.frame === last.frame) return null;
  const h = (b: number[]): number => Math.max(1, b[3] - b[1]);
  const cx = (b: number[]): number => (b[0] + b[2]) / 2;
  const scale = h(last.bbox) / h(first.bbox);
  const dx = (cx(last.bbox) - cx(first.bbox)) / Math.max(1, first.width);
  if (scale > 1 + SCALE_CHANGE) return "towards-camera";
  if (scale < 1 / (1 + SCALE_CHANGE)) return "away-from-camera";
  if (dx > SIDEWAYS) return "left-to-right";
  if (dx < -SIDEWAYS) return "right-to-left";
  return "stationary";
}

/** The camera's map, keeping only string values. */
export function movementMap(config: Record<string, unknown>): Record<string, string> {
  const m = config.movement_map;
  if (typeof m !== "object" || m === null || Array.isArray(m)) return {};
  return Object.fromEntries(Object.entries(m as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Which rooms a semantic direction goes between, for a camera in `room`. */
export function roomsOf(semantic: string, room: { id: string | null; name: string | null }): { from: typeof room; to: typeof room } {
  const none = { id: null, name: null };
  if (semantic === "exiting" || semantic === "approaching_exit") return { from: room, to: none };
  return { from: none, to: room };
}
