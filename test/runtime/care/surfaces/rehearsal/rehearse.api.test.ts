/**
 * Rehearsal (issue 27 §2) over HTTP: a webhook rule that alerted three times on a recorded
 * night is rehearsed as deployed (the same three alerts, with their rendered texts, none sent)
 * and as a draft with a 5-minute cool-off (one alert fewer, and which one); nothing of either
 * reaches the live store. On SQLite and PostgreSQL (the suite's store).
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../../../support/test-app";
import { recordDoorbellNight } from "../../../../support/doorbell-night";

const MIN = 60_000;
const T0 = Date.parse("2026-11-20T02:00:00Z");

describe("rehearsing a rule on the recorded inputs", function () {
  this.timeout(60_000);
  let t: TestApp;
  let ruleId: number;
  const clock = new ManualClock(T0);

  before(async () => {
    t = await startTestApp({ clock, nodeRed: true });
    ruleId = await recordDoorbellNight(t, clock);
  });
  after(() => t.close());

  const window = { from: new Date(T0 - MIN).toISOString(), to: new Date(T0 + 60 * MIN).toISOString() };

  it("as deployed: the same three alerts, at the same times, with what they would have said", async () => {
    const alertsBefore = (await t.get("/api/v1/alerts")).body.length;
    const res = await t.post(`/api/v1/rules/${ruleId}/rehearse`, window, KEYS.caregiver);
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    assert.equal(a.rule_name, "Door at night");
    assert.equal(a.inputs_replayed, 3);
    assert.equal(a.rehearsed.length, 3, JSON.stringify(a.rehearsed));
    assert.equal(a.actual.length, 3);
    assert.deepEqual(
      a.rehearsed.map((r: { started_at: string }) => r.started_at),
      a.actual.map((r: { started_at: string }) => r.started_at),
      "each rehearsed run starts when its recorded input came",
    );
    assert.ok(a.rehearsed.every((r: { status: string; alerted: boolean }) => r.status === "completed" && r.alerted));
    const texts = a.rehearsed.flatMap((r: { would_send: Array<{ target: string; text: string }> }) => r.would_send.map((w) => `${w.target}: ${w.text}`));
    assert.deepEqual(
      texts.filter((x: string) => x.startsWith("chat_app")),
      ["chat_app: Someone at the door: postman", "chat_app: Someone at the door: neighbour", "chat_app: Someone at the door: nurse"],
    );
    assert.equal(a.difference.summary, "no difference (3 alerts, 3 runs)");
    assert.deepEqual(a.not_rehearsed, []);
    // Nothing reached the live household.
    assert.equal((await t.get("/api/v1/alerts")).body.length, alertsBefore);
    assert.equal((await t.get(`/api/v1/workflows?rule_id=${ruleId}`)).body.length, 3);
  });

  it("a draft with a 5-minute cool-off: one alert fewer, the one at 02:02", async () => {
    const { flows, index } = await t.app.ctx.flows.snapshot();
    const tabId = index.rules.find((r) => r.id === ruleId)!.tab_id;
    const tab = structuredClone(flows.filter((n) => n.id === tabId || n.z === tabId));
    const trigger = tab.find((n) => n.type === "careflow-rule-trigger" || String(n.type).endsWith("trigger"))!;
    (trigger.config as Record<string, unknown>).cool_off_minutes = 5;
    // The editor's unsaved tab may carry a tab id of its own.
    const draft = tab.map((n) => (n.id === tabId ? { ...n, id: "unsaved-tab" } : n.z === tabId ? { ...n, z: "unsaved-tab" } : n));
    const res = await t.post(`/api/v1/rules/${ruleId}/rehearse`, { ...window, draft: { flows: draft } });
    assert.equal(res.status, 200, res.text);
    const a = res.body;
    assert.equal(a.draft, true);
    assert.equal(a.rehearsed.length, 2);
    assert.equal(a.difference.rehearsed_alerts, 2);
    assert.deepEqual(a.difference.missing_alerts, [new Date(T0 + 2 * MIN).toISOString()]);
    assert.match(a.difference.summary, /^1 fewer alert, one no longer sent \(\d\d:\d\d\), 1 run fewer$/);
    // The deployed rule is unchanged.
    const live = (await t.get(`/api/v1/rules/${ruleId}`)).body;
    assert.equal(live.cool_off_minutes, 0);
  });

  it("refuses a bad window or draft with a 4xx naming the field", async () => {
    const cases: Array<[unknown, number, RegExp]> = [
      [{ from: "yesterday" }, 422, /from/],
      [{ from: window.to, to: window.from }, 422, /from: must be before/],
      [{ from: new Date(T0 - 9 * 86400_000).toISOString(), to: window.to }, 422, /at most 7 days/],
      [{ ...window, draft: { flows: [{ id: "x", type: "comment" }] } }, 422, /draft/],
      [{ ...window, extra: 1 }, 422, /extra/],
    ];
    for (const [body, status, detail] of cases) {
      const res = await t.post(`/api/v1/rules/${ruleId}/rehearse`, body);
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.text}`);
      assert.match(res.body.detail, detail);
    }
    assert.equal((await t.post("/api/v1/rules/9999/rehearse", window)).status, 404);
  });
});
