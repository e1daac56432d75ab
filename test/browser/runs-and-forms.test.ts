/**
 * The editor as a caregiver uses it, in a real Chromium: the Care runs tab in the tab bar,
 * forms with household pickers and a worded cron schedule, a broken condition shown under its
 * field while typing and marked on the canvas before deploy, "Run now" from the trigger node
 * with a sample trigger, and the run's path lit up on the canvas.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { SCREENSHOT_DIR, startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;

describe("browser: forms, run now and a run's path in the editor", function () {
  this.timeout(60000);
  let s: EditorSession;
  let page: Page;
  let ids: Record<string, string>;

  before(async function () {
    s = await startEditorSession(this, { demo: true });
    page = await s.newEditorPage("admin", KEYS.admin);
    ids = await page.evaluate(() => {
      const out: Record<string, string> = {};
      RED.nodes.eachWorkspace((w: any) => {
        if (w.label === "Morning medication") out.tab = w.id;
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
  });

  const edit = async (nodeId: string) => {
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeId);
    await page.locator("#node-dialog-ok").waitFor({ state: "visible" });
    // The tray slides in from the right: done when its Done button is left of the sidebar.
    await page.waitForFunction(() => {
      const done = document.querySelector("#node-dialog-ok")?.getBoundingClientRect();
      const sidebar = document.querySelector("#red-ui-sidebar")?.getBoundingClientRect();
      return done && sidebar && done.right <= sidebar.left;
    });
  };
  const cancel = async () => {
    await page.locator("#node-dialog-cancel").click();
    await page.locator("#node-dialog-cancel").waitFor({ state: "detached" });
  };

  it("has the Care runs tab in the sidebar's tab bar, not only in its overflow menu", async () => {
    const button = page.locator("#red-ui-tab-careflow-runs-link-button");
    await button.waitFor({ state: "visible" });
    await button.click();
    await page.locator("#red-ui-tab-careflow-runs").waitFor({ state: "visible" });
    assert.match(await page.locator("#red-ui-tab-careflow-runs").innerText(), /Care runs/);
  });

  it("picks the trigger's sensor from the household and words its cron schedule with the next fire times", async () => {
    await edit(ids["care-trigger"]);
    const sensor = page.locator('select[data-careflow-key="primary_sensor_id"]');
    await sensor.waitFor({ state: "visible" });
    await page.waitForFunction(() => document.querySelectorAll('select[data-careflow-key="primary_sensor_id"] option').length > 2);
    const options = await sensor.locator("option").allInnerTexts();
    assert.ok(
      options.some((o) => /binary_sensor\.bedroom_presence/.test(o)),
      options.join(" | "),
    );
    const preview = page.locator(".careflow-cron-preview");
    await preview.filter({ hasText: "Next:" }).waitFor();
    const worded = await preview.innerText();
    assert.match(worded, /At 10:00/);
    assert.equal((worded.match(/\d\d:\d\d/g) ?? []).length, 4, `the schedule and three fire times: ${worded}`);
    await page.locator('[data-careflow-key="schedule_cron"]').fill("0 25 * * *");
    await preview.filter({ hasText: /hour/ }).waitFor();
    assert.match(await preview.innerText(), /^expression: .*hour/);
    const nulls = await page
      .locator("#dialog-form textarea, #dialog-form input[type=text]")
      .evaluateAll((els: any[]) => els.filter((e) => e.value === "null").length);
    assert.equal(nulls, 0, "no field shows a literal null");
    await s.screenshot(page, "10-trigger-form");
    await cancel();
  });

  it("offers a notification's channels as checkboxes", async () => {
    await edit(ids["care-notification"]);
    const boxes = page.locator('.careflow-choices[data-careflow-key="channels"] input[type=checkbox]');
    await boxes.first().waitFor();
    const values = await boxes.evaluateAll((els: any[]) => els.map((e) => e.value));
    for (const c of ["pwa_popup_text", "chat_app", "eink", "webhook"]) assert.ok(values.includes(c), values.join(", "));
    await s.screenshot(page, "14-notification-form");
    await cancel();
  });

  it("shows a broken condition under its field while typing, and clears it when fixed", async () => {
    await edit(ids["care-condition"]);
    const field = page.locator('[data-careflow-key="expression"]');
    const problem = page.locator('[data-careflow-problem="expression"]');
    await field.fill("not verification.verified and (");
    await problem.waitFor({ state: "visible" });
    assert.match(await problem.innerText(), /unexpected end of expression/);
    await s.screenshot(page, "11-inline-check");
    await field.fill("not verificaton.verified");
    await problem.filter({ hasText: "did you mean 'verification'" }).waitFor();
    await field.fill("not verification.verified");
    await problem.waitFor({ state: "hidden" });
    await cancel();
  });

  it("marks a node the deploy would refuse with the red triangle before anyone deploys", async () => {
    const nodeId = ids["care-condition"];
    await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      n.config = { ...n.config, expression: "verification.verified and (" };
      n.changed = true;
      RED.nodes.dirty(true);
      RED.events.emit("nodes:change", n);
    }, nodeId);
    await page.waitForFunction((id) => RED.nodes.node(id).valid === false, nodeId, { timeout: 10000 });
    await page.locator(`[id="${nodeId}"] .red-ui-flow-node-error:not(.hide)`).waitFor({ state: "attached" });
    await s.screenshot(page, "12-invalid-before-deploy");
    // Put it back as deployed, so the next test runs the deployed rule.
    await page.evaluate(() => RED.actions.invoke("core:undo"));
    await page.evaluate((id) => {
      const n = RED.nodes.node(id);
      n.config = { ...n.config, expression: "not verification.verified" };
      RED.events.emit("nodes:change", n);
      RED.nodes.dirty(false);
    }, nodeId);
    await page.waitForFunction((id) => RED.nodes.node(id).valid !== false, nodeId, { timeout: 10000 });
  });

  it("runs the rule now from its trigger node, then lights up the run's path on the canvas", async () => {
    const trigger = ids["care-trigger"];
    await page.locator(`[id="${trigger}"] .red-ui-flow-node-button-button`).click();
    const sample = page.locator("textarea.careflow-sample");
    await sample.waitFor({ state: "visible" });
    assert.match(await sample.inputValue(), /"sensor_id": "binary_sensor\.bedroom_presence"/);
    await page.locator(".careflow-run-now-go").click();
    await page.locator(".red-ui-notification", { hasText: /Run #\d+ started/ }).waitFor();

    // The run opens in the sidebar; its steps and receipts are there, its path on the canvas.
    await page.locator(".careflow-step", { hasText: "remind (notification)" }).waitFor();
    await page.waitForFunction((id) => /ran .* ms/.test(RED.nodes.node(id)?.status?.text ?? ""), ids["care-notification"], { timeout: 10000 });
    const statuses = await page.evaluate(
      (all) =>
        Object.fromEntries(
          Object.entries(all)
            .filter(([k]) => k !== "tab")
            .map(([k, id]) => [k, RED.nodes.node(id)?.status?.text ?? null]),
        ),
      ids,
    );
    assert.match(statuses["care-trigger"], /^fired/);
    assert.match(statuses["care-condition"], /→ true$/);
    assert.ok((await page.locator(".careflow-link-taken").count()) >= 3, "the links the run took are drawn");
    await page.locator(".careflow-step", { hasText: "taken? (verification)" }).click();
    // The detail of the step clicked (another step's may be in the page, hidden).
    await page.locator(".careflow-step-detail h4", { hasText: "Wrote" }).filter({ visible: true }).first().waitFor();
    await s.screenshot(page, "13-run-path");
    // The README's picture of a run on the canvas.
    fs.copyFileSync(path.join(SCREENSHOT_DIR, "13-run-path.png"), path.join(SCREENSHOT_DIR, "readme-run-path.png"));

    await page.locator("a", { hasText: "all runs" }).click();
    await page.waitForFunction((id) => !RED.nodes.node(id)?.status, ids["care-notification"]);
    assert.equal(await page.locator(".careflow-link-taken").count(), 0, "closing the run clears the path");
  });
});
