import assert from "node:assert/strict";
import type { CameraFrame, RecentFramesQuery } from "../../../../vocabulary/frames";
import { handler } from "../../../../nodes/steps/camera_media_poll/camera_media_poll.handler";
import { spec } from "../../../../nodes/steps/camera_media_poll/camera_media_poll.node";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput } from "../../handler-context";

const NOW = Date.parse("2026-11-22T10:00:00Z");

/** `n` frames of one camera, newest first as the service gives them, a minute apart. */
function frames(sensor_id: string, room_name: string | null, n: number): CameraFrame[] {
  return Array.from({ length: n }, (_, i) => {
    const at = new Date(NOW - (i + 1) * 60_000).toISOString();
    return { media_id: 0, sensor_id, room_name, captured_at: at, path: `media/${sensor_id}-${i}.jpg`, url: `/u/${sensor_id}/${i}`, labels: [] };
  });
}

function poll(value: CameraFrame[], config: Record<string, unknown> = {}) {
  const asked: RecentFramesQuery[] = [];
  const ctx = handlerContext({ media: { recentFrames: async (q) => (asked.push(q), { ok: true, value }) } }, new ManualClock(NOW));
  return { asked, result: handler(ctx, stepInput({}, "camera_media_poll"), configOf(spec, config)) };
}

describe("camera_media_poll step handler", () => {
  it("asks the cache for the window up to now on the step's clock, with the per-camera limits", async () => {
    const { asked, result } = poll([], {
      sensor_ids: ["hall_cam"],
      room_names: ["Kitchen"],
      since_minutes: 7,
      images_per_sensor: 2,
      sensor_frame_limits: { hall_cam: 4, porch_cam: 0 },
    });
    await result;
    assert.deepEqual(asked, [
      {
        sensor_ids: ["hall_cam"],
        room_names: ["Kitchen"],
        since: "2026-11-22T09:53:00.000Z",
        until: "2026-11-22T10:00:00.000Z",
        per_sensor: 2,
        sensor_limits: { hall_cam: 4, porch_cam: 0 },
      },
    ]);
  });

  it("lists the images camera by camera, oldest first, with the cameras, their rooms and the poll's time", async () => {
    const value = [...frames("kitchen_cam", "Kitchen", 3), ...frames("pantry_cam", "kitchen", 1), ...frames("hall_cam", null, 2)];
    const r = await poll(value).result;
    assert.notEqual(r.success, false);
    assert.equal(r.warning, undefined);
    assert.deepEqual(r.data, {
      images: ["/u/kitchen_cam/2", "/u/kitchen_cam/1", "/u/kitchen_cam/0", "/u/pantry_cam/0", "/u/hall_cam/1", "/u/hall_cam/0"],
      count: 6,
      sensor_ids: ["kitchen_cam", "pantry_cam", "hall_cam"],
      room_names: ["Kitchen"],
      since_minutes: 5,
      polled_at: "2026-11-22T10:00:00.000Z",
    });
    assert.deepEqual(r.trace?.images?.slice(0, 2), ["media/kitchen_cam-2.jpg", "media/kitchen_cam-1.jpg"], "the timeline names the files");
    assert.match(r.trace?.message ?? "", /^6 image\(s\) from kitchen_cam, pantry_cam, hall_cam$/);
  });

  it("lists each camera newest first when chronological is off", async () => {
    const r = await poll([...frames("a_cam", "A", 2), ...frames("b_cam", "B", 2)], { chronological: false }).result;
    assert.deepEqual(r.data?.images, ["/u/a_cam/0", "/u/a_cam/1", "/u/b_cam/0", "/u/b_cam/1"]);
  });

  it("caps the total at max_images, taking every camera's newest before any camera's second", async () => {
    const value = [...frames("a_cam", "A", 3), ...frames("b_cam", "B", 3), ...frames("c_cam", "C", 1)];
    const r = await poll(value, { max_images: 4 }).result;
    assert.deepEqual(r.data?.images, ["/u/a_cam/1", "/u/a_cam/0", "/u/b_cam/0", "/u/c_cam/0"]);
    assert.equal(r.data?.count, 4);
    assert.deepEqual(r.data?.sensor_ids, ["a_cam", "b_cam", "c_cam"]);
    assert.match(r.trace?.message ?? "", /3 more left out by max_images 4/);

    const one = await poll(value, { max_images: 1 }).result;
    assert.deepEqual(one.data?.images, ["/u/a_cam/0"]);
    assert.deepEqual(one.data?.sensor_ids, ["a_cam"], "only the cameras whose images are returned");
    assert.deepEqual(one.data?.room_names, ["A"]);
  });

  it("succeeds with no images when the cache holds none in the window", async () => {
    const r = await poll([], { since_minutes: 2 }).result;
    assert.notEqual(r.success, false);
    assert.equal(r.warning, undefined, "an empty window is an answer, not a problem");
    assert.deepEqual(r.data, { images: [], count: 0, sensor_ids: [], room_names: [], since_minutes: 2, polled_at: "2026-11-22T10:00:00.000Z" });
    assert.match(r.trace?.message ?? "", /no camera images in the last 2 minute/);
  });

  it("answers success false with an empty payload, and why, when the cache is unavailable", async () => {
    const reason = "the event aggregator is off (aggregator.enabled is false)";
    const ctx = handlerContext({ media: { recentFrames: async () => ({ ok: false, reason }) } });
    const r = await handler(ctx, stepInput({}, "camera_media_poll"), configOf(spec, {}));
    assert.equal(r.success, false);
    assert.deepEqual(r.data, {});
    assert.equal(r.error, reason);
    assert.match(r.warning ?? "", /^no camera images: .*aggregator\.enabled is false/);
    assert.notEqual(r.should_continue, false, "the run goes on");
  });
});
