/**
 * A dementia rule fired by the tracking stream, end to end in a real Node-RED runtime: the
 * signal arrives over NATS, the `dementia_signal` trigger starts the rule, its filter lets the
 * signal through, and an acknowledgment through REST holds the next one for `cooldown_minutes`.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { eventually, importRule, runsOf } from "../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../support/nats";
import { CtsPublisher } from "../../../fakes/cts-publisher";

describe("continuous tracking: a dementia rule fires from the signals stream", function () {
  this.timeout(90_000);
  let t: TestApp;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("streams");
  const clock = new ManualClock(Date.now());
  let ruleId: number;

  before(async function () {
    await requireNats(this);
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    t = await startTestApp({ clock, nodeRed: true, settings: { cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix } } });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    ruleId = await importRule(t, {
      rule: { name: "Rose wanders at night", trigger_type: "dementia_signal" },
      contexts: [{ context_type: "dementia_signal", config: { kinds: ["pacing", "nighttime_movement"], severity_min: "warning", cooldown_minutes: 30 } }],
      steps: [{ label: "note", step_type: "condition", config: { expression: "true" } }],
      edges: [],
    });
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  after(async () => {
    await t?.close();
    await pub?.close();
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
  });

  const runs = () => runsOf(t, ruleId);

  it("starts the rule with the signal in its trigger payload", async () => {
    await pub.signal({ signal_id: "n-1", identity_id: "rose", kind: "pacing", severity: "warning", minutes: 10 });
    const [run] = await eventually("a run", async () => {
      const r = await runs();
      return r.length === 1 && r[0].status === "completed" ? r : undefined;
    });
    assert.equal(run.pipeline_data.trigger_type, "dementia_signal");
  });

  it("does not start it for a kind the rule's filter leaves out", async () => {
    await pub.signal({ signal_id: "n-2", identity_id: "rose", kind: "absence", severity: "emergency" });
    await eventually("the signal stored", async () => (await t.get("/api/v1/cts/signals")).body.some((s: { signal_id: string }) => s.signal_id === "n-2"));
    await t.app.cts.idle();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await runs()).length, 1);
  });

  it("holds the next signal of that kind while an acknowledgment is within cooldown_minutes, then fires again", async () => {
    const [first] = (await t.get("/api/v1/cts/signals/unacknowledged?kind=pacing")).body as Array<{ id: number }>;
    assert.equal((await t.post(`/api/v1/cts/signals/${first.id}/acknowledge`, { feedback: "checked on her" })).status, 200);
    clock.advance(60_000);
    await pub.signal({ signal_id: "n-3", identity_id: "rose", kind: "pacing", severity: "warning" });
    await eventually("n-3 stored", async () => (await t.get("/api/v1/cts/signals")).body.some((s: { signal_id: string }) => s.signal_id === "n-3"));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await runs()).length, 1, "held by the cooldown");
    clock.advance(31 * 60_000);
    await pub.signal({ signal_id: "n-4", identity_id: "rose", kind: "pacing", severity: "warning" });
    await eventually("a second run", async () => (await runs()).length === 2);
  });
});
