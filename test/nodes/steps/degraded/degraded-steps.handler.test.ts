/** Node types whose service is not built yet degrade as the spec says, instead of failing the run. */
import assert from "node:assert/strict";
import { handler as ctsPoll } from "../../../../nodes/steps/cts_window_poll/cts_window_poll.handler";
import { spec as ctsSpec } from "../../../../nodes/steps/cts_window_poll/cts_window_poll.node";
import { handler as identify } from "../../../../nodes/steps/person_identification/person_identification.handler";
import { spec as identifySpec } from "../../../../nodes/steps/person_identification/person_identification.node";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { configOf } from "../../filters/_support/tracking-db";
import { handlerContext, stepInput } from "../../handler-context";

describe("steps that degrade while their service is missing", () => {
  it("cts_window_poll: an empty window, partial true, while continuous tracking is off", async () => {
    const clock = new ManualClock(Date.parse("2026-11-22T10:00:00Z"));
    const off = { tracking: { window: () => Promise.resolve(null) } };
    const r = await ctsPoll(handlerContext(off, clock), stepInput({}, "cts_window_poll"), configOf(ctsSpec, { cameras: ["cts1"] }));
    assert.notEqual(r.success, false);
    assert.equal(r.data?.partial, true);
    assert.deepEqual(r.data?.frames, []);
    assert.equal(r.data?.window_start, "2026-11-22T09:59:55.000Z");
    assert.equal(r.data?.window_end, "2026-11-22T10:00:05.000Z");
    assert.deepEqual(r.data?.cameras, ["cts1"]);
    assert.deepEqual(r.data?.summary, { distinct_identities: 0, detection_count: 0, rooms: [] });
    assert.match(r.warning ?? "", /continuous tracking is off/);
  });

  it("person_identification: nobody identified when the trigger brought no frames, and why", async () => {
    const r = await identify(handlerContext(), stepInput({}, "person_identification"), configOf(identifySpec, { include_annotated_image: true }));
    assert.deepEqual(r.data, { person_detections: [], annotated_images: [], room_transitions: [] });
    assert.match(r.warning ?? "", /no frames/);
  });
});
