/** LiveEvents: subscribers get the types they asked for, and `wants()` follows who listens. */
import assert from "node:assert/strict";
import { LiveEvents, type PipelineEventType, type PipelineExecutionEvent } from "../../../../../../runtime/care/core/pipeline/engine/live-events";

const event = (event_type: PipelineEventType) => ({
  event_type,
  execution_id: 1,
  rule_id: 1,
  rule_name: "r",
  status: "running",
  previous_status: null,
  step_id: null,
  step_label: null,
  elapsed_ms: 0,
  at: "2026-01-05T09:00:00.000Z",
});

const ALL: PipelineEventType[] = [
  "pipeline_started",
  "step_started",
  "step_completed",
  "pipeline_waiting",
  "pipeline_resumed",
  "pipeline_completed",
  "pipeline_failed",
  "pipeline_cancelled",
];

describe("LiveEvents", () => {
  it("wants nothing and delivers nothing without subscribers", () => {
    const live = new LiveEvents();
    for (const t of ALL) assert.equal(live.wants(t), false, t);
    live.emit(event("step_started"));
  });

  it("delivers only the asked-for types to a typed subscriber, and every type to one without types", () => {
    const live = new LiveEvents();
    const resumed: string[] = [];
    const all: string[] = [];
    live.subscribe((e) => resumed.push(e.event_type), ["pipeline_resumed"]);
    live.subscribe((e) => all.push(e.event_type));
    for (const t of ["pipeline_started", "pipeline_resumed", "pipeline_completed"] as const) live.emit(event(t));
    assert.deepEqual(resumed, ["pipeline_resumed"]);
    assert.deepEqual(all, ["pipeline_started", "pipeline_resumed", "pipeline_completed"]);
  });

  it("wants() follows subscribe and unsubscribe, per type", () => {
    const live = new LiveEvents();
    const offA = live.subscribe(() => {}, ["pipeline_resumed"]);
    const offB = live.subscribe(() => {}, ["pipeline_resumed", "step_started"]);
    assert.equal(live.wants("pipeline_resumed"), true);
    assert.equal(live.wants("step_started"), true);
    assert.equal(live.wants("pipeline_started"), false);
    offB();
    assert.equal(live.wants("step_started"), false);
    assert.equal(live.wants("pipeline_resumed"), true, "still wanted by the first subscriber");
    offB();
    assert.equal(live.wants("pipeline_resumed"), true, "a second unsubscribe changes nothing");
    const offAll = live.subscribe(() => {});
    for (const t of ALL) assert.equal(live.wants(t), true, t);
    offAll();
    offA();
    for (const t of ALL) assert.equal(live.wants(t), false, t);
  });

  it("stops delivering to an unsubscribed listener", () => {
    const live = new LiveEvents();
    const got: string[] = [];
    const off = live.subscribe((e) => got.push(e.event_type), ["step_started"]);
    live.emit(event("step_started"));
    off();
    live.emit(event("step_started"));
    assert.deepEqual(got, ["step_started"]);
  });

  it("numbers delivered events in increasing order and marks them pipeline_event", () => {
    const live = new LiveEvents();
    const got: PipelineExecutionEvent[] = [];
    live.subscribe((e) => got.push(e), ["step_started", "step_completed"]);
    for (const t of ["step_started", "step_completed", "step_started"] as const) live.emit(event(t));
    assert.deepEqual(
      got.map((e) => e.type),
      ["pipeline_event", "pipeline_event", "pipeline_event"],
    );
    const seq = got.map((e) => e.sequence);
    assert.ok(seq[0] < seq[1] && seq[1] < seq[2], String(seq));
  });

  it("lets a listener unsubscribe while an event is being delivered", () => {
    const live = new LiveEvents();
    const got: string[] = [];
    const off = live.subscribe(() => {
      got.push("first");
      off();
    });
    live.subscribe(() => got.push("second"));
    live.emit(event("pipeline_started"));
    live.emit(event("pipeline_completed"));
    assert.deepEqual(got, ["first", "second", "second"]);
  });

  it("says when this instance comes to want the other instances' runs and when it stops, once each", () => {
    const live = new LiveEvents();
    const heard: boolean[] = [];
    live.onOtherInstancesWanted((wanted) => heard.push(wanted));
    const ownOnly = live.subscribe(() => undefined);
    assert.equal(live.wantsOtherInstances, false, "a listener to this engine alone wants nothing from the others");
    const feedA = live.subscribe(() => undefined, null, { otherInstances: true });
    const feedB = live.subscribe(() => undefined, ["pipeline_started"], { otherInstances: true });
    assert.equal(live.wantsOtherInstances, true);
    feedA();
    assert.equal(live.wantsOtherInstances, true, "one feed client is left");
    feedB();
    feedB();
    ownOnly();
    assert.equal(live.wantsOtherInstances, false);
    assert.deepEqual(heard, [true, false]);
  });
});
