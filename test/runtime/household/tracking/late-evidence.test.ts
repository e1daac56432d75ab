/**
 * A tracking fix that arrives after newer evidence (a redelivery after a kill): it never moves
 * where the person is now, but the room change it saw goes into the history at its time, and the
 * history never ends in a room the person is not in.
 */
import assert from "node:assert/strict";
import { isLateFix, placeLateFix } from "../../../../runtime/household/tracking/late-evidence";
import type { Evidence } from "../../../../runtime/household/tracking/location-step";
import type { StoredLocation } from "../../../../runtime/household/tracking/locations.store";

const T = Date.parse("2026-11-30T08:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const fix = (over: Partial<Evidence> = {}): Evidence => ({
  ph_id: "ph-1",
  person_id: "rose",
  person_name: "Rose",
  room_name: "Kitchen",
  source: "cts",
  sensor_id: "kitchen-cam",
  confidence: 0.8,
  atMs: T,
  direction_raw: null,
  direction_semantic: null,
  ...over,
});

const now: StoredLocation = {
  person_id: "rose",
  room_id: "1",
  room_name: "Bedroom",
  source: "cts",
  confidence: 0.9,
  updated_at: iso(T + 60_000),
  mean_quality: 0.85,
  quality_samples: 4,
};
const kitchen = { id: "2", name: "Kitchen" };

describe("tracking: late evidence", () => {
  it("only a tracking fix older than the present location is late", () => {
    assert.equal(isLateFix(null, fix()), false, "nobody placed yet: it is the present");
    assert.equal(isLateFix(now, fix()), true);
    assert.equal(isLateFix(now, fix({ atMs: T + 60_000 })), false, "as new as the present: not late");
    assert.equal(isLateFix(now, fix({ source: "camera" })), false, "only continuous tracking is placed late");
  });

  it("adds nothing when the history already has the person in that room then", () => {
    const before = { id: 1, room_name: "kitchen", timestamp: iso(T - 60_000) };
    assert.deepEqual(placeLateFix(fix(), kitchen, now, before, null), { insert: [], earlier: null });
  });

  it("moves the next change earlier when it was into the late fix's room", () => {
    const before = { id: 1, room_name: "Hall", timestamp: iso(T - 60_000) };
    const after = { id: 2, room_name: "Kitchen", timestamp: iso(T + 30_000) };
    assert.deepEqual(placeLateFix(fix(), kitchen, now, before, after), { insert: [], earlier: { point: after, timestamp: iso(T) } });
  });

  it("inside the present stay elsewhere: the late room, then the return to where the person is now", () => {
    const before = { id: 1, room_name: "Bedroom", timestamp: iso(T - 60_000) };
    const { insert, earlier } = placeLateFix(fix(), kitchen, now, before, null);
    assert.equal(earlier, null);
    assert.deepEqual(
      insert.map((c) => [c.room_name, c.timestamp, c.source, c.confidence, c.ph_id]),
      [
        ["Kitchen", iso(T), "cts", 0.8, "ph-1"],
        ["Bedroom", now.updated_at, "cts", 0.9, null],
      ],
    );
    assert.deepEqual([insert[1].mean_quality, insert[1].quality_samples, insert[0].mean_quality, insert[0].quality_samples], [0.85, 4, 0.8, 1]);
  });

  it("inside the present stay in the same room, or before a change elsewhere: only the late room", () => {
    const before = { id: 1, room_name: "Hall", timestamp: iso(T - 60_000) };
    const inKitchen = { ...now, room_name: "Kitchen" };
    assert.deepEqual(
      placeLateFix(fix(), kitchen, inKitchen, before, null).insert.map((c) => c.room_name),
      ["Kitchen"],
    );
    const after = { id: 2, room_name: "Bedroom", timestamp: iso(T + 30_000) };
    assert.deepEqual(
      placeLateFix(fix(), kitchen, now, before, after).insert.map((c) => c.room_name),
      ["Kitchen"],
    );
  });
});
