/**
 * `cts_live_frame` on `/ws`: the tracking view's picture of each camera, at most
 * `cts.live_publish_max_hz` per camera (a frame in between is skipped, the next one shows the
 * newer state), and only to keys that may read the tracking cameras (never the senior's tablet).
 */
import type { PlatformContext } from "../../platform/context";
import type { RestTwin } from "../../platform/ws/webapp-hub";

export const LIVE_FRAME_TWIN: RestTwin = { method: "GET", path: "/api/v1/cts/cameras" };

export interface LiveDetection {
  ph_id: string;
  identity_id: string | null;
  display_name: string | null;
  identity_confidence: number | null;
  confidence: number;
  bbox: { x_min: number; y_min: number; x_max: number; y_max: number } | null;
  floor_point: { x_mm: number; y_mm: number; calibrated: boolean } | null;
  posture: string | null;
}

export interface LiveFrame {
  type: "cts_live_frame";
  camera_id: string;
  event_time: string;
  room_name: string | null;
  frame_url: string | null;
  frame_width: number | null;
  frame_height: number | null;
  detections: LiveDetection[];
}

export class LiveFrames {
  private readonly lastSent = new Map<string, number>();

  constructor(private readonly ctx: Pick<PlatformContext, "clock" | "settings" | "webapp">) {}

  /** Sends the frame unless its camera sent one less than 1/max_hz ago; true when sent. */
  offer(frame: LiveFrame): boolean {
    const now = this.ctx.clock.now();
    const minGapMs = 1000 / this.ctx.settings.cts.live_publish_max_hz;
    const last = this.lastSent.get(frame.camera_id);
    if (last !== undefined && now - last < minGapMs) return false;
    this.lastSent.set(frame.camera_id, now);
    this.ctx.webapp.broadcastTo(LIVE_FRAME_TWIN, { ...frame });
    return true;
  }
}
