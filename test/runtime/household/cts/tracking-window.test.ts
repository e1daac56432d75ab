/** The bucketed tracking window over stored frames: one per camera and period, thinned past max_frames. */
import assert from "node:assert/strict";
import type { Store } from "../../../../runtime/platform/db/store";
import { storeFrame } from "../../../../runtime/household/cts/cts-frames.store";
import { trackingWindow } from "../../../../runtime/household/cts/tracking-window";
import { openFreshStore } from "../../../support/test-db";

describe("continuous tracking: the bucketed window", () => {
  let store: Store;
  let close: () => Promise<void>;
  before(async () => {
    ({ store, close } = await openFreshStore("migrated"));
    const base = Date.parse("2026-11-22T03:00:00Z");
    for (let i = 0; i < 40; i++) {
      await storeFrame(store.db, {
        event_id: `e${i}`,
        camera_id: i % 2 ? "hall-cam" : "living-cam",
        room_name: i % 2 ? "Hallway" : "Living Room",
        event_time: new Date(base + i * 250).toISOString(),
        detections: [{ ph_id: "ph-1", identity_id: "rose", confidence: 0.9, identity_confidence: 0.9, posture: "walking", bbox: null }],
      });
    }
  });
  after(() => close());

  it("keeps the newest frame of each camera per sample period", async () => {
    const w = await trackingWindow(store.db, {
      since: "2026-11-22T03:00:00.000Z",
      until: "2026-11-22T03:00:10.000Z",
      sample_period_s: 1,
      cameras: [],
      rooms: [],
      max_frames: 30,
    });
    assert.equal(w.frames.length, 20, "10 periods × 2 cameras");
    assert.equal(w.trimmed, false);
    assert.deepEqual(w.frames[0].identities, ["rose"]);
  });

  it("narrows to rooms and thins past max_frames, saying so", async () => {
    const w = await trackingWindow(store.db, {
      since: "2026-11-22T03:00:00.000Z",
      until: "2026-11-22T03:00:10.000Z",
      sample_period_s: 1,
      cameras: [],
      rooms: ["Hallway"],
      max_frames: 4,
    });
    assert.equal(w.frames.length, 4);
    assert.equal(w.trimmed, true);
    assert.ok(w.frames.every((f) => f.room_name === "Hallway"));
  });
});
