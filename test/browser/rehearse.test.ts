/**
 * "Rehearse" in the editor (issue 27 §2), in a real Chromium: a webhook rule alerted three
 * times on a recorded night; the caregiver gives it a 5-minute cool-off in the editor, does
 * not deploy, and rehearses the last 24 h. The timeline shows two would-be alerts beside the
 * three real ones, the one no longer sent marked, the difference in words; a rehearsed run
 * lights up its path on the canvas, and so does a real one. Then "Draft from words": the fake
 * authoring model's first rule is refused by the gate, its repair is opened as a new tab, not
 * deployed, and rehearsed on the last 7 days at once. Last, a rule that asks Rose and calls for
 * help when she does not answer: the prompt she answered is answered so in the rehearsal, and
 * the sidebar says whose answer it used.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ManualClock } from "../../runtime/platform/core/clock";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../fakes/openai-chat-server";
import { doorBundle } from "../runtime/care/surfaces/rule-words/words-fixture";
import { startEditorSession, type EditorSession } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { KEYS } from "../support/test-app";
import { recordDoorbellNight } from "../support/doorbell-night";
import { recordCheckOnRose } from "../support/check-on-rose";

declare const RED: any;

const T0 = Date.parse("2026-11-20T02:00:00Z");

describe("browser: rehearsing a rule tab's undeployed changes", function () {
  this.timeout(90_000);
  let s: EditorSession;
  let page: Page;
  let ruleId: number;
  let ids: Record<string, string>;
  const clock = new ManualClock(T0);
  let fake: ScriptedServer;

  before(async function () {
    fake = await startFakeOpenAiChatServer();
    s = await startEditorSession(this, {
      clock,
      settings: {
        llm: { models: [{ id: "author", api_type: "openai", base_url: fake.baseUrl, model: "writer-7b", capabilities: ["text"], timeout: 5 }] },
        knowledge: { authoring_model: "author" },
      },
    });
    ruleId = await recordDoorbellNight(s.t, clock);

    page = await s.newEditorPage("admin", KEYS.admin);
    ids = await page.evaluate(() => {
      const out: Record<string, string> = {};
      RED.nodes.eachWorkspace((w: any) => {
        if (w.label === "Door at night") out.tab = w.id;
      });
      RED.nodes.eachNode((n: any) => {
        if (n.z === out.tab) out[n.type] = n.id;
      });
      return out;
    });
    await page.evaluate((tab) => RED.workspaces.show(tab), ids.tab);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
    await fake?.close();
  });

  it("rehearses the tab as edited, not deployed: two would-be alerts beside the three real ones", async () => {
    // A 5-minute cool-off, changed in the editor and not deployed.
    await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      n.config = { ...n.config, cool_off_minutes: 5 };
      n.changed = true;
      RED.nodes.dirty(true);
    }, ids["care-trigger"]);
    const button = page.locator("#red-ui-tab-careflow-rehearse-link-button");
    await button.waitFor({ state: "visible" });
    await button.click();
    await page.locator(".careflow-rehearse-window", { hasText: "Last 24 h" }).click();
    const summary = page.locator(".careflow-rehearsal-summary");
    await summary.waitFor({ timeout: 30_000 });
    assert.match(await summary.innerText(), /^1 fewer alert, one no longer sent \(\d\d:\d\d\), 1 run fewer$/);
    assert.equal(await page.locator('[data-lane="rehearsed"] .careflow-dot.careflow-alert').count(), 2);
    assert.equal(await page.locator('[data-lane="actual"] .careflow-dot.careflow-alert').count(), 3);
    assert.equal(await page.locator('[data-lane="actual"] .careflow-dot.careflow-missing').count(), 1, "the alert no longer sent is marked");
    const sends = await page.locator(".careflow-rehearsed-run .careflow-would-send").allInnerTexts();
    assert.ok(sends.includes("would send to the family chat: “Someone at the door: postman”"), sends.join(" | "));
    assert.ok(!sends.some((x) => /neighbour/.test(x)), "the doorbell at 02:02 falls in the cool-off");
    // Nothing was deployed by rehearsing.
    assert.equal((await s.t.get(`/api/v1/rules/${ruleId}`)).body.cool_off_minutes, 0);
    assert.equal(await page.evaluate(() => RED.nodes.dirty()), true, "the tab's changes are still the editor's");
  });

  it("opens a rehearsed run's path on the canvas, and a real run's", async () => {
    await page.locator(".careflow-rehearsed-run").first().click();
    await page.waitForFunction((id) => /^would fire/.test(RED.nodes.node(id)?.status?.text ?? ""), ids["care-trigger"]);
    await page.waitForFunction((id) => /^success/.test(RED.nodes.node(id)?.status?.text ?? ""), ids["care-notification"]);
    assert.ok((await page.locator(".careflow-link-taken").count()) >= 1, "the link it would have taken is drawn");
    await s.screenshot(page, "30-rehearse-timeline");
    await assertAccessible(page, "the Rehearse panel", { include: [".careflow-rehearse"] });

    await page.locator('[data-lane="actual"] .careflow-dot.careflow-missing').click();
    await page.waitForFunction((id) => /^fired/.test(RED.nodes.node(id)?.status?.text ?? ""), ids["care-trigger"]);
    await s.screenshot(page, "31-rehearse-actual-run");
  });

  it("rehearses 7 days and 3 nights on the household's clock", async () => {
    for (const [label, hours] of [
      ["7 days", 7 * 24],
      ["3 nights", null],
    ] as const) {
      await page.locator(".careflow-rehearse-window", { hasText: label }).click();
      await page.locator(".careflow-rehearsal-summary").waitFor({ timeout: 30_000 });
      const text = await page.locator(".careflow-rehearsal").innerText();
      assert.match(text, /3 inputs replayed/, `${label}: ${text}`);
      if (hours) assert.match(text, /Would have run \(2 runs, 2 alerts\)/);
    }
  });

  it("drafts a rule from words: the repaired answer opens as an undeployed tab, rehearsed on 7 days", async () => {
    fake.script({ content: JSON.stringify(doorBundle(["carrier_pigeon"])) }, { content: JSON.stringify(doorBundle(["chat_app"])) });
    await page.locator(".careflow-draft-from-words").click();
    await page.locator("textarea.careflow-sentence").fill("Tell me when someone rings the door bell at night");
    await page.locator(".careflow-words-go").click();
    await page.locator(".red-ui-tab", { hasText: "Door bell at night" }).waitFor();
    await page.locator(".careflow-rehearsal-summary").waitFor({ timeout: 30_000 });
    const text = await page.locator(".careflow-rehearsal").innerText();
    assert.match(text, /Actually ran \(0 runs, 0 alerts\)/, text);
    // The door bell calls went to the deployed rule's URL; the new rule has none yet.
    assert.match(text, /Would have run \(0 runs, 0 alerts\)/, text);
    assert.match(text, /a new webhook rule has no recorded calls/, text);
    assert.equal(fake.requests.length, 2, "one repair turn");
    assert.equal(await page.evaluate(() => RED.nodes.dirty()), true, "the drafted tab is not deployed");
    assert.equal((await s.t.get("/api/v1/rules")).body.length, 1, "only the deployed rule exists");
    await s.screenshot(page, "32-draft-from-words");
  });

  it("a prompt Rose answered is answered so in the rehearsal: no alert made up, and the sidebar says whose answer it was", async () => {
    // Rose answered the first prompt and left the second to its countdown.
    await recordCheckOnRose(s.t, clock);

    const fresh = await s.newEditorPage("admin", KEYS.admin);
    const tab = await fresh.evaluate(() => {
      let id = "";
      RED.nodes.eachWorkspace((w: any) => {
        if (w.label === "Check on Rose") id = w.id;
      });
      return id;
    });
    await fresh.evaluate((tabId) => RED.workspaces.show(tabId), tab);
    await fresh.locator("#red-ui-tab-careflow-rehearse-link-button").click();
    await fresh.locator(".careflow-rehearse-window", { hasText: "Last 24 h" }).click();
    await fresh.locator(".careflow-rehearsal-summary").waitFor({ timeout: 30_000 });
    const text = await fresh.locator(".careflow-rehearsal").innerText();
    assert.match(text, /Would have run \(2 runs, 1 alert\)/, text);
    assert.match(text, /Actually ran \(2 runs, 1 alert\)/, text);
    assert.doesNotMatch(text, /\b1 (inputs|alerts|runs|steps)\b/, "one of a thing is said in the singular");
    assert.match(
      await fresh.locator(".careflow-recorded-answer").innerText(),
      /^Answered as recorded at \d\d:\d\d: the senior's answer to the prompt in run \d+$/,
    );
    await s.screenshot(fresh, "33-rehearse-recorded-answer");
    await fresh.close();
  });
});
