/** cts_live_frame: at most live_publish_max_hz per camera, and only to keys that may read the tracking cameras. */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { LiveFrames, LIVE_FRAME_TWIN, type LiveFrame } from "../../../../runtime/household/cts/live-frames";
import type { RestTwin, WebAppFrame } from "../../../../runtime/platform/ws/webapp-hub";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";

const frame = (camera_id: string): LiveFrame => ({
  type: "cts_live_frame",
  camera_id,
  event_time: "",
  room_name: null,
  frame_url: null,
  frame_width: null,
  frame_height: null,
  detections: [],
});

describe("continuous tracking: live frames", () => {
  it("throttles each camera to live_publish_max_hz and sends through the cameras route's permission", () => {
    const clock = new ManualClock();
    const sent: Array<{ twin: RestTwin; frame: WebAppFrame }> = [];
    const webapp = { broadcastTo: (twin: RestTwin, f: WebAppFrame) => (sent.push({ twin, frame: f }), 1) };
    const live = new LiveFrames({ clock, settings: buildSettings({ cts: { live_publish_max_hz: 2 } }), webapp: webapp as never });
    assert.equal(live.offer(frame("a")), true);
    assert.equal(live.offer(frame("a")), false, "within 500 ms of the last");
    assert.equal(live.offer(frame("b")), true, "another camera has its own pace");
    clock.advance(499);
    assert.equal(live.offer(frame("a")), false);
    clock.advance(1);
    assert.equal(live.offer(frame("a")), true);
    assert.equal(sent.length, 3);
    assert.deepEqual(sent[0].twin, LIVE_FRAME_TWIN);
    assert.deepEqual(LIVE_FRAME_TWIN, { method: "GET", path: "/api/v1/cts/cameras" });
  });
});
