/** RunsWatch: listens from the first watch until the TTL after the last, on a controlled clock. */
import assert from "node:assert/strict";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { LiveEvents, type PipelineExecutionEvent } from "../../../runtime/care/core/pipeline/engine/live-events";
import { RunsWatch, WATCH_TTL_MS } from "../../../editor-plugins/runs-sidebar/watch";

const started = {
  event_type: "step_started" as const,
  execution_id: 7,
  rule_id: 1,
  rule_name: "r",
  status: "running",
  previous_status: null,
  step_id: 3,
  step_label: "s",
  elapsed_ms: 0,
  at: "2026-01-05T09:00:00.000Z",
};

describe("runs sidebar watch", () => {
  it("expires 60 s after the last watch", () => {
    assert.equal(WATCH_TTL_MS, 60_000);
  });

  it("forwards every event type from the first watch, and stops a TTL after the last", () => {
    const clock = new ManualClock();
    const live = new LiveEvents();
    const forwarded: PipelineExecutionEvent[] = [];
    const watch = new RunsWatch({ forward: (e) => forwarded.push(e), ttlMs: 60_000, clock });
    assert.equal(live.wants("step_started"), false);
    watch.watch(live);
    assert.equal(live.wants("step_started"), true);
    assert.equal(live.wants("pipeline_cancelled"), true);
    live.emit({ ...started });
    assert.deepEqual(
      forwarded.map((e) => e.execution_id),
      [7],
    );

    clock.advance(59_000);
    watch.watch(live); // the editor's next watch pushes the expiry back
    clock.advance(59_000);
    assert.equal(live.wants("step_started"), true, "59 s after the last watch");
    clock.advance(1_000);
    assert.equal(live.wants("step_started"), false, "60 s after the last watch");
    assert.equal(watch.active, false);
    assert.equal(clock.pendingTimers(), 0);
    live.emit({ ...started });
    assert.equal(forwarded.length, 1);

    watch.watch(live);
    assert.equal(live.wants("step_started"), true, "a later watch listens again");
    watch.stop();
    assert.equal(live.wants("step_started"), false);
  });

  it("subscribes once however often it is watched", () => {
    const clock = new ManualClock();
    const live = new LiveEvents();
    const forwarded: PipelineExecutionEvent[] = [];
    const watch = new RunsWatch({ forward: (e) => forwarded.push(e), clock });
    for (let i = 0; i < 3; i++) watch.watch(live);
    live.emit({ ...started });
    assert.equal(forwarded.length, 1);
    assert.equal(clock.pendingTimers(), 1);
    watch.stop();
  });

  it("lets go of an engine that stopped, timer and all", () => {
    const clock = new ManualClock();
    const live = new LiveEvents();
    const watch = new RunsWatch({ forward: () => {}, clock });
    watch.watch(live);
    live.close();
    assert.equal(watch.active, false);
    assert.equal(live.wants("step_started"), false);
    assert.equal(clock.pendingTimers(), 0);
  });

  it("follows a new engine: leaves the old one's events", () => {
    const clock = new ManualClock();
    const before = new LiveEvents();
    const after = new LiveEvents();
    const watch = new RunsWatch({ forward: () => {}, clock });
    watch.watch(before);
    watch.watch(after);
    assert.equal(before.wants("step_started"), false);
    assert.equal(after.wants("step_started"), true);
    watch.stop();
  });
});
