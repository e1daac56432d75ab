/** cts_window_poll over a tracking window: what it asks for, and the summary of what it got. */
import assert from "node:assert/strict";
import type { TrackingWindowQuery } from "../../../../vocabulary/tracking";
import { handler } from "../../../../nodes/steps/cts_window_poll/cts_window_poll.handler";
import { spec } from "../../../../nodes/steps/cts_window_poll/cts_window_poll.node";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput } from "../../handler-context";

describe("cts_window_poll", () => {
  it("reads the window from lookback_s ago up to now and summarises its frames", async () => {
    const clock = new ManualClock(Date.parse("2026-11-22T03:00:00Z"));
    const asked: TrackingWindowQuery[] = [];
    const frame = (t: string, camera: string, room: string, ids: string[]) => ({
      frame_time: t,
      camera_id: camera,
      room_name: room,
      detections: ids.map((id, i) => ({ ph_id: `ph-${i}`, identity_id: id, confidence: 0.9, posture: "walking", bbox: null })),
      identities: ids,
    });
    const tracking = {
      window: (q: TrackingWindowQuery) => {
        asked.push(q);
        return Promise.resolve({
          frames: [frame("2026-11-22T02:59:56Z", "hall-cam", "Hallway", ["rose"]), frame("2026-11-22T02:59:58Z", "living-cam", "Living Room", ["rose", "tom"])],
          trimmed: true,
        });
      },
    };
    const r = await handler(
      handlerContext({ tracking }, clock),
      stepInput({}, "cts_window_poll"),
      configOf(spec, { rooms: ["Hallway", "Living Room"], max_frames: 2 }),
    );
    assert.deepEqual(asked[0], {
      since: "2026-11-22T02:59:55.000Z",
      until: "2026-11-22T03:00:00.000Z",
      sample_period_s: 1,
      cameras: [],
      rooms: ["Hallway", "Living Room"],
      max_frames: 2,
    });
    assert.deepEqual(r.data?.summary, { distinct_identities: 2, detection_count: 3, rooms: ["Hallway", "Living Room"] });
    assert.deepEqual(r.data?.cameras, ["hall-cam", "living-cam"]);
    assert.equal(r.data?.partial, true, "trimmed by max_frames");
    assert.equal(r.warning, undefined);
  });
});
