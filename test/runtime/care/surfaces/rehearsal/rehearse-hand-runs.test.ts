/**
 * Issue 42 item 5: an unchanged rule rehearses to "no difference". "Rose wanders at night"
 * alerted on two tracking signals; the first was acknowledged twenty minutes later, and the
 * rule was run three times by hand (execute, rerun, the editor's "Run now"). The rehearsal
 * replays each signal as it stood then (unacknowledged), shows the hand runs apart and
 * compares only the runs the signals started; a draft in the bundle's shape (the export, as
 * `POST /rules/import` takes it) rehearses the same. On SQLite and PostgreSQL (the suite's store).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { acknowledgeSignal, findSignals, upsertSignal } from "../../../../../runtime/household/tracking/signals.store";
import { tryRuleOfTab } from "../../../../../runtime/care/core/pipeline/runs/runs.service";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { eventually, importRule, runsOf } from "../../../../support/eventually";

const MIN = 60_000;
const T0 = Date.parse("2026-11-20T01:00:00Z");

describe("rehearsing an unchanged rule with hand-started runs and a signal acknowledged later", function () {
  this.timeout(90_000);
  let t: TestApp;
  let ruleId: number;
  const clock = new ManualClock(T0);

  async function completed(n: number): Promise<void> {
    await eventually(`${n} runs completed`, async () => {
      const runs = await runsOf(t, ruleId);
      return runs.length === n && runs.every((r) => r.status === "completed");
    });
  }

  async function signal(signalId: string): Promise<void> {
    const at = new Date(clock.now()).toISOString();
    await upsertSignal(
      t.app.ctx.db,
      { signal_id: signalId, person_id: "rose", kind: "pacing", severity: "warning", value: null, details: {}, started_at: at },
      at,
      true,
    );
    t.app.ctx.bus.publish("cts.signal", { signal_id: signalId });
  }

  before(async () => {
    t = await startTestApp({ clock, nodeRed: true });
    assert.equal((await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" })).status, 201);
    ruleId = await importRule(t, {
      rule: { name: "Rose wanders at night", trigger_type: "dementia_signal" },
      contexts: [{ context_type: "dementia_signal", config: { kinds: ["pacing"], severity_min: "warning", cooldown_minutes: 0 } }],
      steps: [
        {
          label: "Tell the family",
          step_type: "notification",
          schema_version: 1,
          config: { alert_level: "info", channels: ["pwa_popup_text"], message_template: "Rose is up and pacing" },
        },
      ],
      edges: [],
    });
    await signal("night-1");
    await completed(1);
    clock.set(T0 + 10 * MIN);
    await signal("night-2");
    await completed(2);
    // The first signal is acknowledged after its alert went out.
    clock.set(T0 + 20 * MIN);
    const [first] = await findSignals(t.app.ctx.db, { signal_id: "night-1" });
    // As the chat's or the tracking page's acknowledgment writes it (those need the tracking link on).
    await acknowledgeSignal(t.app.ctx.db, first.id, {
      acknowledged_at: new Date(clock.now()).toISOString(),
      acknowledged_by: "Anna",
      feedback: "she went back to bed",
    });
    // Three runs started by hand.
    clock.set(T0 + 30 * MIN);
    assert.equal((await t.post(`/api/v1/rules/${ruleId}/execute`, {})).status, 201);
    await completed(3);
    const [firstRun] = (await runsOf(t, ruleId)).slice(-1);
    assert.equal((await t.post(`/api/v1/workflows/${firstRun.execution_id ?? firstRun.id}/rerun`, {})).status, 201);
    await completed(4);
    const { index } = await t.app.ctx.flows.snapshot();
    await tryRuleOfTab(t.app.ctx, index.rules.find((r) => r.id === ruleId)!.tab_id, {});
    await completed(5);
    clock.set(T0 + 60 * MIN);
  });
  after(() => t?.close());

  const window = { from: new Date(T0 - MIN).toISOString(), to: new Date(T0 + 60 * MIN).toISOString() };

  function assertNoDifference(a: Record<string, any>): void {
    assert.equal(a.difference.summary, "no difference (2 alerts, 2 runs)", JSON.stringify(a.difference));
    assert.deepEqual(
      a.rehearsed.map((r: { started_at: string; alerted: boolean }) => [r.started_at, r.alerted]),
      a.actual.map((r: { started_at: string; alerted: boolean }) => [r.started_at, r.alerted]),
      "both signals replayed, each alerting as it did",
    );
    assert.deepEqual(
      a.actual.map((r: { started_at: string }) => r.started_at),
      [new Date(T0).toISOString(), new Date(T0 + 10 * MIN).toISOString()],
    );
    assert.equal(a.hand_started.length, 3, "execute, rerun and Run now shown apart");
    assert.deepEqual(a.difference.missing_alerts, []);
    assert.deepEqual(a.difference.new_alerts, []);
  }

  it("as deployed: no difference, the hand runs apart", async () => {
    const res = await t.post(`/api/v1/rules/${ruleId}/rehearse`, window, KEYS.caregiver);
    assert.equal(res.status, 200, res.text);
    assertNoDifference(res.body);
  });

  it("a draft in the bundle's shape (the rule's export) rehearses the same; a bad one is refused naming the draft", async () => {
    const bundle = (await t.get(`/api/v1/rules/${ruleId}/export`)).body;
    const res = await t.post(`/api/v1/rules/${ruleId}/rehearse`, { ...window, draft: bundle }, KEYS.caregiver);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.draft, true);
    assertNoDifference(res.body);

    const bad = await t.post(`/api/v1/rules/${ruleId}/rehearse`, { ...window, draft: { ...bundle, steps: [{ label: "x" }] } }, KEYS.caregiver);
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.body.detail, /^draft/);
  });
});
