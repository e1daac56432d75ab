/**
 * A cts_window rule end to end in a real Node-RED runtime: tracking events arrive over NATS from
 * the fake tracking service, the window they fall in closes on the app clock, and the rule's
 * run starts with that window in its pipeline_data, as a `cts_window_poll` step would leave it.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { framesBetween } from "../../../../runtime/household/cts/cts-frames.store";
import { SETTLE_MS } from "../../../../runtime/care/core/pipeline/triggers/cts-window.trigger";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { eventually, importRule, runsOf } from "../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../support/nats";
import { CtsPublisher } from "../../../fakes/cts-publisher";

describe("continuous tracking: a cts_window rule fires from the events stream", function () {
  this.timeout(90_000);
  let t: TestApp;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("window");
  // 1 s into a 10 s window of the app clock, near real time so the events are not stale.
  const windowStart = Math.floor(Date.now() / 10_000) * 10_000;
  const clock = new ManualClock(windowStart + 1_000);
  let ruleId: number;

  before(async function () {
    await requireNats(this);
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    t = await startTestApp({
      clock,
      nodeRed: true,
      settings: {
        cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, cameras: [{ id: "hall-cam", name: "Hall", rtsp_url: "", location: "Hallway" }] },
      },
    });
    await t.post("/api/v1/rooms", { name: "Hallway" });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    ruleId = await importRule(t, {
      rule: { name: "Rose in the hallway", trigger_type: "cts_window", cts_window_config: { duration_s: 10, rooms: ["Hallway"], min_identities: 1 } },
      contexts: [],
      steps: [{ label: "seen", step_type: "condition", config: { expression: "summary.distinct_identities >= 1" } }],
      edges: [],
    });
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  after(async () => {
    await t?.close();
    await pub?.close();
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
  });

  it("starts the rule when the window closed, with the window in pipeline_data", async () => {
    for (let i = 0; i < 4; i++) {
      await pub.event({ event_id: `w-${i}`, camera_id: "hall-cam", people: [{ ph_id: "ph-1", identity_id: "rose" }], at: clock.now() });
      clock.advance(1_000);
    }
    const iso = (ms: number) => new Date(ms).toISOString();
    await eventually(
      "the frames stored",
      async () => (await framesBetween(t.app.ctx.db, { since: iso(windowStart), until: iso(windowStart + 10_000), cameras: [], rooms: [] })).length === 4,
    );
    assert.equal((await runsOf(t, ruleId)).length, 0, "not before the window closed");
    clock.set(windowStart + 10_000 + SETTLE_MS);
    const [run] = await eventually("a completed run", async () => {
      const r = await runsOf(t, ruleId);
      return r.length === 1 && r[0].status === "completed" ? r : undefined;
    });
    const data = run.pipeline_data;
    assert.equal(data.trigger_type, "cts_window");
    assert.equal(data.window_start, iso(windowStart));
    assert.equal(data.window_end, iso(windowStart + 10_000));
    assert.deepEqual(data.cameras, ["hall-cam"]);
    assert.deepEqual(data.rooms, ["Hallway"]);
    assert.equal(data.frames.length, 4);
    assert.deepEqual(data.frames[0].identities, ["rose"]);
    assert.deepEqual(data.summary, { distinct_identities: 1, detection_count: 4, rooms: ["Hallway"] });
    assert.equal(data.partial, false);
    assert.equal(data.webhook_payload.trigger_id, data.trigger_id);
  });

  it("starts the rule for a window that had closed empty when a frame captured in it arrives late", async () => {
    const next = windowStart + 10_000;
    clock.set(next + 10_000 + SETTLE_MS); // the next window closes with nothing in it
    const captured = next + 5_000;
    await pub.event({ event_id: "late-1", camera_id: "hall-cam", people: [{ ph_id: "ph-1", identity_id: "rose" }], at: captured });
    const run = await eventually("a run for the late frame's window", async () =>
      (await runsOf(t, ruleId)).find((r) => r.pipeline_data.window_start === new Date(next).toISOString()),
    );
    assert.equal(run.pipeline_data.summary.detection_count, 1);
    assert.equal((await runsOf(t, ruleId)).length, 2, "one run per window");
  });
});
