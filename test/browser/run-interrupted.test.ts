/**
 * Issue 51, item 9, in the editor's Care runs tab (a real Chromium): a run whose notification
 * step a restart cut short while its webhook was in flight shows the step as "interrupted"
 * (not skipped), what it had done, and the run's reason. The restart is the start's own
 * recovery, run on the store as the kill left it (the row holds the step under way).
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { recoverRuns } from "../../runtime/care/core/pipeline/engine/recovery";
import { startWebhookReceiver, type WebhookReceiver } from "../fakes/webhook-receiver";
import { startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

describe("browser: a run a restart interrupted, in the Care runs tab", function () {
  this.timeout(60000);
  let s: EditorSession;
  let rx: WebhookReceiver;
  let page: Page;
  let runId: number;

  before(async function () {
    rx = await startWebhookReceiver();
    rx.delayBy(600_000); // the receiver holds its answer: the step is under way
    s = await startEditorSession(this, {
      settings: { notifications: { webhook: { url: rx.url, timeout_seconds: 60 }, levels: { info: { channels: ["webhook"] } } } },
    });
    const t = s.t;
    const rule = await t.post("/api/v1/rules/import", {
      schema_version: 1,
      rule: { name: "Tell the family", trigger_type: "manual" },
      steps: [{ label: "tell", step_type: "notification", schema_version: 1, config: { alert_level: "info", message_template: "hello" } }],
      edges: [],
    });
    assert.equal(rule.status, 201, rule.text);
    runId = (await t.post(`/api/v1/rules/${rule.body.rule_id}/execute`, {})).body.execution_id;
    await rx.waitFor(1, 20_000);
    await recoverRuns(t.app.ctx);
    page = await s.newEditorPage("admin", KEYS.admin);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
    await rx?.close();
  });

  it("shows the step as interrupted, with what it had done, and the run's reason", async () => {
    await page.locator("#red-ui-tab-careflow-runs-link-button").click();
    await page.locator(`.careflow-run[data-execution="${runId}"]`).click();
    const step = page.locator(".careflow-step", { hasText: "cut short by a restart" });
    await step.waitFor({ state: "visible" });
    assert.match(await step.innerText(), /interrupted/);
    assert.doesNotMatch(await step.innerText(), /skipped/);
    const done = await page.locator(".careflow-step-done").allInnerTexts();
    assert.ok(
      done.some((d) => /sending through webhook/.test(d)),
      done.join("\n"),
    );
    await page.getByText("interrupted by a restart during 'tell'").first().waitFor({ state: "visible" });
  });
});
