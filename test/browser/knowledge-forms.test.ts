/**
 * The `info_card` and `quiz_start` nodes in the editor, in a real Chromium: each form offers a
 * picker for its card or quiz (filled from the approved list when the repository serves it),
 * with the node's own id chosen, and the new nodes are in the palette.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startEditorSession, type EditorSession } from "../support/browser";
import { importRule } from "../support/eventually";
import { insertCard, insertQuiz } from "../support/knowledge-fixture";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;

describe("browser: the card and quiz nodes' forms", function () {
  this.timeout(60000);
  let s: EditorSession;
  let page: Page;
  let cardId: number;
  let quizId: number;

  before(async function () {
    s = await startEditorSession(this);
    cardId = await insertCard(s.t.app.ctx, { title: "The new heater" });
    quizId = await insertQuiz(s.t.app.ctx);
    await importRule(s.t, {
      rule: { name: "Teach", trigger_type: "manual" },
      steps: [
        { label: "card", step_type: "info_card", schema_version: 1, config: { card_id: cardId, channels: ["pwa", "eink"] } },
        { label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId } },
      ],
      edges: [{ source_label: "card", source_port: "main", target_label: "quiz" }],
    });
    page = await s.newEditorPage("admin", KEYS.admin);
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
  });

  const nodeOf = (type: string): Promise<string> =>
    page.evaluate((t) => {
      let id = "";
      RED.nodes.eachNode((n: any) => {
        if (n.type === t) id = n.id;
      });
      return id;
    }, type);

  async function edit(type: string): Promise<void> {
    const id = await nodeOf(type);
    assert.ok(id, `a ${type} node`);
    await page.evaluate((n) => {
      const node = RED.nodes.node(n);
      RED.workspaces.show(node.z);
      RED.editor.edit(node);
    }, id);
    await page.locator("#node-dialog-ok").waitFor({ state: "visible" });
  }

  it("picks the card of an info_card node from a list, with its channels as checkboxes", async () => {
    await edit("care-info_card");
    const picker = page.locator('select[data-careflow-key="card_id"]');
    await picker.waitFor({ state: "visible" });
    await page.waitForFunction((id) => document.querySelector('select[data-careflow-key="card_id"]').value === String(id), cardId);
    const checked = await page.locator('[data-careflow-key="channels"] input:checked').evaluateAll((els: any[]) => els.map((e) => e.value));
    assert.deepEqual(checked, ["pwa", "eink"]);
    await page.waitForTimeout(1200); // the form's live check (400 ms after a change) has answered
    assert.equal(await page.locator('[data-careflow-problem="card_id"]').isVisible(), false, "no problem shown for the chosen card");
    await s.screenshot(page, "editor-info-card-form");
    await page.locator("#node-dialog-cancel").click();
    await page.locator("#node-dialog-cancel").waitFor({ state: "detached" });
  });

  it("picks the quiz of a quiz_start node from a list, and shows its two ports", async () => {
    await edit("care-quiz_start");
    await page.locator('select[data-careflow-key="quiz_id"]').waitFor({ state: "visible" });
    await page.waitForFunction((id) => document.querySelector('select[data-careflow-key="quiz_id"]').value === String(id), quizId);
    assert.equal(await page.locator('input[data-careflow-key="dedupe_minutes"]').inputValue(), "720");
    await page.locator("#node-dialog-cancel").click();
    const outputs = await page.evaluate(() => {
      let n = 0;
      RED.nodes.eachNode((x: any) => {
        if (x.type === "care-quiz_start") n = x.outputs;
      });
      return n;
    });
    assert.equal(outputs, 2, "main and skipped");
  });
});
