/**
 * The editor's rehearsal routes (behind the editor's login, as the runs sidebar's): a caller
 * without a session is refused, a bad window or a tab without a rule is refused with a detail,
 * and a rule tab's last 24 h come back with each rehearsed run's path; drafting from words
 * without an authoring model says what to configure.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../../runtime/platform/core/clock";
import { KEYS, startTestApp, type TestApp } from "../../support/test-app";
import { recordDoorbellNight } from "../../support/doorbell-night";

describe("editor: rehearsal routes", function () {
  this.timeout(60_000);
  let t: TestApp;
  let tab: string;
  const clock = new ManualClock(Date.parse("2026-11-20T01:00:00Z"));
  before(async () => {
    t = await startTestApp({ nodeRed: true, clock });
    const ruleId = await recordDoorbellNight(t, clock);
    tab = (await t.app.ctx.flows.snapshot()).index.rules.find((r) => r.id === ruleId)!.tab_id;
  });
  after(() => t.close());

  const post = (path: string, body: unknown, bearer: string | null = KEYS.admin) =>
    fetch(`${t.baseUrl}/editor${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
    });

  it("refuses a caller without an editor session", async () => {
    assert.equal((await post(`/careflow/tabs/${tab}/rehearse`, { window: "24h" }, null)).status, 401);
    assert.equal((await post("/careflow/rules/draft-from-words", { sentence: "Tell me" }, null)).status, 401);
  });

  it("refuses a bad window and a tab without a rule, naming why", async () => {
    const bad = await post(`/careflow/tabs/${tab}/rehearse`, { window: "forever" });
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /^window: must be one of 24h/);
    const none = await post("/careflow/tabs/no-such-tab/rehearse", { window: "24h" });
    assert.equal(none.status, 404);
    assert.match(((await none.json()) as { detail: string }).detail, /no deployed rule/);
  });

  it("rehearses a rule tab's last 24 h, each rehearsed run with its path", async () => {
    const res = await post(`/careflow/tabs/${tab}/rehearse`, { window: "24h" }, KEYS.caregiver);
    assert.equal(res.status, 200);
    const a = (await res.json()) as { tab_id: string; rehearsed: Array<{ path: unknown }>; difference: { summary: string } };
    assert.equal(a.tab_id, tab);
    assert.equal(a.rehearsed.length, 3);
    assert.ok(
      a.rehearsed.every((r) => r.path),
      "each rehearsed run has a path for the canvas",
    );
    assert.equal(a.difference.summary, "no difference (3 alerts, 3 runs)");
  });

  it("drafting from words without an authoring model says what to configure", async () => {
    const res = await post("/careflow/rules/draft-from-words", { sentence: "Tell me if Mum isn't up by nine" });
    assert.equal(res.status, 409);
    const body = (await res.json()) as { detail: string; not_set_up: { part: string; message: string } };
    assert.match(body.detail, /authoring_model/);
    assert.equal(body.not_set_up.part, "language_model");
  });
});
